"""Golden cases of the shape, view, reduction and factory ops (group "shape")."""


def cases(g):
    pass

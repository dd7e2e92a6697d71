"""Golden cases of the "conv" group (tests/golden/make_op_goldens.py calls cases(g))."""


def cases(g):
    """No cases yet."""

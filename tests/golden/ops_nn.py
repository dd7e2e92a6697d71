"""Golden cases of the neural-network ops: GEMM, normalisation, softmax, convolution, pooling,
embedding, losses, dropout (group "nn")."""


def cases(g):
    pass

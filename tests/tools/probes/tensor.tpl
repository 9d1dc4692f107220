# pypto.program: Survey
import pypto.language as pl

@pl.program
class Survey:
    @pl.function
    def m(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32], xi: pl.Tensor[[16, 64], pl.INT32], xu: pl.Tensor[[16, 64], pl.UINT32], xs: pl.Tensor[[16, 64], pl.INT16], x32: pl.Tensor[[16, 32], pl.FP32], x32i: pl.Tensor[[16, 32], pl.INT32], x8: pl.Tensor[[8, 64], pl.FP32], xr: pl.Tensor[[16, 1], pl.FP32], x1: pl.Tensor[[64], pl.FP32], x3: pl.Tensor[[2, 16, 64], pl.FP32], xh: pl.Tensor[[64, 64], pl.FP16], s: pl.Scalar[pl.FP32], n: pl.Scalar[pl.INDEX], k: pl.Scalar[pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        #PROBE
        return out

# pypto.program: Survey
import pypto.language as pl

@pl.program
class Survey:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def d(x: pl.Tensor[[16, 64], pl.FP32], xi: pl.Tensor[[16, 64], pl.INT32], x1: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[16, 64], pl.FP32], datai: pld.DistributedTensor[[16, 64], pl.INT32], data1: pld.DistributedTensor[[64], pl.FP32], datah: pld.DistributedTensor[[16, 64], pl.FP16], big: pld.DistributedTensor[[32, 64], pl.FP32], sig: pld.DistributedTensor[[2, 1], pl.INT32], sig1: pld.DistributedTensor[[2], pl.INT32], sigf: pld.DistributedTensor[[2, 1], pl.FP32], sig3: pld.DistributedTensor[[2, 3], pl.INT32], counts: pl.Tensor[[2], pl.INT32], rcounts: pld.DistributedTensor[[2], pl.INT32], peer: pl.Scalar[pl.INT32], pi: pl.Scalar[pl.INDEX], s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        ai: pl.Tile[[16, 64], pl.INT32, pl.Mem.Vec] = pl.tile.load(xi, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        a8: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([8, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        am: pl.Tile[[16, 64], pl.FP32, pl.Mem.Mat] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Mat)
        ctx: pld.CommCtxType = pld.system.get_comm_ctx(data)
        #PROBE
        return out

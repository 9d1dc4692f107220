# pypto.program: Survey
import pypto.language as pl

@pl.program
class Survey:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def k(x: pl.Tensor[[16, 64], pl.FP32], xi: pl.Tensor[[16, 64], pl.INT32], xh: pl.Tensor[[64, 64], pl.FP16], tab: pl.Tensor[[1024, 64], pl.FP32], tabh: pl.Tensor[[1024, 64], pl.FP16], x3: pl.Tensor[[2, 16, 64], pl.FP32], flat: pl.Tensor[[1024], pl.FP32], s: pl.Scalar[pl.FP32], n: pl.Scalar[pl.INDEX], k: pl.Scalar[pl.INT32], b: pl.Scalar[pl.BOOL], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        ai: pl.Tile[[16, 64], pl.INT32, pl.Mem.Vec] = pl.tile.load(xi, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        au: pl.Tile[[16, 64], pl.UINT32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.UINT32, target_memory=pl.Mem.Vec)
        ah: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP16, target_memory=pl.Mem.Vec)
        a16i: pl.Tile[[16, 64], pl.INT16, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.INT16, target_memory=pl.Mem.Vec)
        a8: pl.Tile[[16, 64], pl.INT8, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.INT8, target_memory=pl.Mem.Vec)
        a32: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        a32i: pl.Tile[[16, 32], pl.INT32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.INT32, target_memory=pl.Mem.Vec)
        a1: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.create([64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        a3: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([2, 16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        row: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 1], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        rowi: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.create([16, 1], dtype=pl.INT32, target_memory=pl.Mem.Vec)
        col: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([1, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        mk: pl.Tile[[16, 64], pl.UINT8, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
        am: pl.Tile[[16, 64], pl.FP32, pl.Mem.Mat] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Mat)
        hm: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(xh, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
        lt: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(hm, target_memory=pl.Mem.Left)
        rt: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.tile.move(hm, target_memory=pl.Mem.Right)
        accT: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        bt: pl.Tile[[1, 64], pl.FP32, pl.Mem.Bias] = pl.tile.create([1, 64], dtype=pl.FP32, target_memory=pl.Mem.Bias)
        l8: pl.Tile[[64, 64], pl.FP8E4M3FN, pl.Mem.Left] = pl.tile.create([64, 64], dtype=pl.FP8E4M3FN, target_memory=pl.Mem.Left)
        r8: pl.Tile[[64, 64], pl.FP8E4M3FN, pl.Mem.Right] = pl.tile.create([64, 64], dtype=pl.FP8E4M3FN, target_memory=pl.Mem.Right)
        lsc: pl.Tile[[64, 2], pl.FP8E8M0, pl.Mem.Mat] = pl.tile.create([64, 2], dtype=pl.FP8E8M0, target_memory=pl.Mem.Mat)
        rsc: pl.Tile[[2, 64], pl.FP8E8M0, pl.Mem.Mat] = pl.tile.create([2, 64], dtype=pl.FP8E8M0, target_memory=pl.Mem.Mat)
        #PROBE
        out: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(a, [0, 0], out)
        return out

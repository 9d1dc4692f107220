# pypto.program: Survey
import pypto.language as pl

@pl.program
class Survey:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def k(x: pl.Tensor[[16, 64], pl.FP32], kv: pl.Tensor[[256, 64], pl.FP16], kvi: pl.Tensor[[256, 64], pl.INT32], idx: pl.Tensor[[8], pl.INT32], idx2: pl.Tensor[[1, 8], pl.INT32], idxb: pl.Tensor[[2, 8], pl.INT32], idxf: pl.Tensor[[8], pl.FP32], btab: pl.Tensor[[16], pl.INT32], wsi: pl.Tensor[[256], pl.INT32], ws2: pl.Tensor[[16, 16], pl.INT64], wss: pl.Tensor[[128], pl.INT64], x2: pl.Tensor[[2, 64], pl.FP32], bb: pl.Scalar[pl.BOOL], y: pl.Tensor[[16, 64], pl.FP32], xi: pl.Tensor[[16, 64], pl.INT32], xr: pl.Tensor[[16, 1], pl.FP32], xc: pl.Tensor[[1, 64], pl.FP32], xh: pl.Tensor[[64, 64], pl.FP16], x1: pl.Tensor[[1, 4096], pl.FP32], tab: pl.Tensor[[1024, 64], pl.FP32], flat: pl.Tensor[[1024], pl.FP32], ws: pl.Tensor[[256], pl.INT64], sw: pl.Tensor[[16], pl.INT32], s: pl.Scalar[pl.FP32], n: pl.Scalar[pl.INDEX], k: pl.Scalar[pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        ai: pl.Tile[[16, 64], pl.INT32, pl.Mem.Vec] = pl.tile.load(xi, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        bi: pl.Tile[[16, 64], pl.INT32, pl.Mem.Vec] = pl.tile.load(xi, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        au: pl.Tile[[16, 64], pl.UINT32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.UINT32, target_memory=pl.Mem.Vec)
        row: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(xr, [0, 0], [16, 1], [16, 1], target_memory=pl.Mem.Vec)
        rowi: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.create([16, 1], dtype=pl.INT32, target_memory=pl.Mem.Vec)
        col: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(xc, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
        colu: pl.Tile[[1, 64], pl.UINT32, pl.Mem.Vec] = pl.tile.create([1, 64], dtype=pl.UINT32, target_memory=pl.Mem.Vec)
        tmp: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        tmpi: pl.Tile[[16, 64], pl.INT32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.INT32, target_memory=pl.Mem.Vec)
        tmpc2: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec] = pl.tile.create([1, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        tmpu8: pl.Tile[[1, 32], pl.UINT8, pl.Mem.Vec] = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
        mk: pl.Tile[[16, 64], pl.UINT8, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
        hm: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(xh, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
        lt: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(hm, target_memory=pl.Mem.Left)
        rt: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.tile.move(hm, target_memory=pl.Mem.Right)
        vl: pl.Tile[[1, 64], pl.FP16, pl.Mem.Left] = pl.tile.create([1, 64], dtype=pl.FP16, target_memory=pl.Mem.Left)
        accT: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        gacc: pl.Tile[[1, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([1, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        bt: pl.Tile[[1, 64], pl.FP32, pl.Mem.Bias] = pl.tile.create([1, 64], dtype=pl.FP32, target_memory=pl.Mem.Bias)
        l8: pl.Tile[[64, 64], pl.FP8E4M3FN, pl.Mem.Left] = pl.tile.create([64, 64], dtype=pl.FP8E4M3FN, target_memory=pl.Mem.Left)
        r8: pl.Tile[[64, 64], pl.FP8E4M3FN, pl.Mem.Right] = pl.tile.create([64, 64], dtype=pl.FP8E4M3FN, target_memory=pl.Mem.Right)
        lsc: pl.Tile[[64, 2], pl.FP8E8M0, pl.Mem.Mat] = pl.tile.create([64, 2], dtype=pl.FP8E8M0, target_memory=pl.Mem.Mat)
        rsc: pl.Tile[[2, 64], pl.FP8E8M0, pl.Mem.Mat] = pl.tile.create([2, 64], dtype=pl.FP8E8M0, target_memory=pl.Mem.Mat)
        arr: pl.Array[8, pl.INT32] = pl.array.create(8, dtype=pl.INT32)
        pctx: pl.PrefetchAsyncContext = pl.prefetch.make_context()
        pevt: pl.AsyncEvent = pl.prefetch.async_prefetch(x1, pctx)
        psess: pl.AsyncSession = pl.prefetch.session(pctx)
        #PROBE
        out: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(a, [0, 0], out)
        return out

# pypto.program: Survey
import pypto.language as pl

@pl.program
class Survey:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def step(data: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]], signal: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]]) -> pld.DistributedTensor[[1, 64], pl.FP32]:
        pld.tensor.allreduce(data, signal, op=0, mode='mesh', core_num=1)
        return data
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[2, 1, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[2, 1, 64], pl.FP32]:
        buf: pl.Ptr = pld.tensor.alloc_window_buffer(pl.const(256, pl.INT64))
        sbuf: pl.Ptr = pld.tensor.alloc_window_buffer(pl.const(8, pl.INT64))
        #PROBE
        return x

import time, psutil, numpy as np, sys
from tensortune.models.importer import load_model
from tensortune.models.peers import ServedProcess, _library_server, _ort_server, _onnx_bytes
def main():
    m=load_model("resnet18",seed=0); x=m.example_input()
    lib="/work/runs/s80/models/lib-resnet18-200-with-s0.so"
    open("/tmp/r18.onnx","wb").write(_onnx_bytes(m,x))
    for what,p in [("tvm",ServedProcess("lib",_library_server,lib,x,2)),("ort",ServedProcess("ort",_ort_server,"/tmp/r18.onnx",x,2))]:
        pid=p._proc.pid; pr=psutil.Process(pid)
        for k in range(3):
            p.repeat_ms(100)
            t0=time.perf_counter(); c0=sum(pr.cpu_times()[:2]); out=[]
            for dt in [0.005,0.01,0.02,0.05,0.1,0.2,0.5,1.0]:
                while time.perf_counter()-t0<dt: time.sleep(0.001)
                out.append("%gs:%.0fms"%(dt,(sum(pr.cpu_times()[:2])-c0)*1000))
            print(what,k," ".join(out),flush=True)
        p.close()
if __name__=="__main__": main()

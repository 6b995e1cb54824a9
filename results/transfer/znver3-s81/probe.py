import sys, time, math, numpy as np
from tensortune.models.importer import load_model
from tensortune.models.peers import ServedProcess, _library_server
M="/work/runs/s80/models/"
def main():
    A=M+"lib-resnet18-200-with-s0.so"; B=M+"lib-resnet18-1000-without-s0.so"
    x=load_model("resnet18",seed=0).example_input()
    K=int(sys.argv[1]); ms=int(sys.argv[2]); R=int(sys.argv[3])
    logs=[]; old=[]
    for r in range(R):
        rng=np.random.default_rng(r)
        order=[A,B] if rng.random()<.5 else [B,A]
        ps={p:ServedProcess(p,_library_server,p,x,2) for p in order}
        try:
            for p in order: ps[p].repeat_ms(ms)
            t={A:[],B:[]}
            for k in range(K):
                seq=order if k%2==0 else order[::-1]
                for p in seq:
                    time.sleep(0.02); t[p].append(ps[p].repeat_ms(ms))
        finally:
            for p in ps.values(): p.close()
        pr=[math.log(a/b) for a,b in zip(t[A],t[B])]
        l=math.log(np.median(t[A])/np.median(t[B]))
        logs.append(l)
        print(r, "A %.2f B %.2f ratio %.3f  pair-ratio sd %.3f  A spread %.2f"%(np.median(t[A]),np.median(t[B]),math.exp(l),np.std(pr),max(t[A])/min(t[A])-1),flush=True)
    logs=np.array(logs); print("geomean %.3f sd %.3f se %.3f"%(math.exp(logs.mean()),logs.std(ddof=1),logs.std(ddof=1)/len(logs)**.5))
    
if __name__=="__main__":
    main()
// spectral-check runs an artifact with the runtime alone and compares its
// results with reference .npy files that spectral-run --save-npy wrote.
// RUN: rm -rf %t && mkdir -p %t/conv %t/wrong
// RUN: spectral-compile %S/../../../examples/spectral_conv.mlir --target=sm_90 -o %t/conv/graph.spx
// RUN: spectral-run %S/../../../examples/spectral_conv.mlir --device=reference --random-inputs \
// RUN:   --seed=7 --save-npy=%t/conv > /dev/null
// RUN: ls %t/conv | FileCheck %s --check-prefix=FILES
// FILES: arg0.npy
// FILES-NEXT: arg1.npy
// FILES-NEXT: arg2.npy
// FILES-NEXT: graph.spx
// FILES-NEXT: result0.npy
// RUN: spectral-check %t/conv --device=host --runs=3 --json=%t/conv.json | FileCheck %s --check-prefix=PASS
// PASS: spectral-check on host
// PASS: conv PASS 1 kernels ({{[0-9]+}} from the artifact, {{[0-9]+}} cache hits, {{[0-9]+}} compiled) loaded in
// PASS-NEXT: result #0: PASS, max abs error
// PASS: 1 cases: 1 passed, 0 failed
// RUN: FileCheck %s --check-prefix=JSON < %t/conv.json
// JSON: {"device": "host ({{[0-9]+}} threads)", "tolerance": "by precision: 1e-4 for 32-bit results, 1e-10 for 64-bit", "runs": 3, "from_source": false, "graphs": true, "cases": [{"name": "conv", "pass": true, "kernels": 1,
// JSON-SAME: "steps": "as one list of 1 operation"
//
// From the second run on, the steps replay as one graph (on the host, a list
// of operations); --no-graphs launches them one by one.
// RUN: spectral-check %t/conv --device=host --runs=2 | FileCheck %s --check-prefix=GRAPHS
// GRAPHS: graphs on)
// GRAPHS: conv PASS {{.*}}; run min {{.*}}; on the device min {{[0-9.]+}} ms, median {{[0-9.]+}} ms, as one list of 1 operation
// GRAPHS: 1 cases: 1 passed, 0 failed; medians summed (1 steps): run {{[0-9.]+}} ms, on the device {{[0-9.]+}} ms
// RUN: spectral-check %t/conv --device=host --runs=2 --no-graphs | FileCheck %s --check-prefix=NOGRAPHS
// NOGRAPHS: graphs off)
// NOGRAPHS: conv PASS {{.*}}, one by one (graphs off)
// RUN: not spectral-check %t/conv --graphs=maybe 2>&1 | FileCheck %s --check-prefix=BADGRAPHS
// BADGRAPHS: unknown option '--graphs=maybe'
//
// Inputs of another seed with the first seed's results: every result fails,
// and the exit status says so.
// RUN: cp %t/conv/graph.spx %t/conv/result0.npy %t/wrong/
// RUN: spectral-run %S/../../../examples/spectral_conv.mlir --device=reference --random-inputs \
// RUN:   --seed=8 --save-npy=%t/seed8 > /dev/null
// RUN: cp %t/seed8/arg*.npy %t/wrong/
// RUN: not spectral-check %t/conv %t/wrong --device=host --runs=0 | FileCheck %s --check-prefix=WRONG
// WRONG: conv PASS
// WRONG: wrong FAIL
// WRONG-NEXT: result #0: FAIL, max abs error
// WRONG: 2 cases: 1 passed, 1 failed
//
// A tolerance of 0 asks for the exact float32 results of the reference's
// rounding, which a different summation order does not give.
// RUN: not spectral-check %t/conv --device=host --tolerance=0 --runs=0 | FileCheck %s --check-prefix=EXACT
// EXACT: conv FAIL
//
// Bad usage and missing pieces are errors that say what is wrong.
// RUN: not spectral-check 2>&1 | FileCheck %s --check-prefix=USAGE
// USAGE: usage: spectral-check CASE_DIR...
// RUN: not spectral-check %t/conv --runs=-1 2>&1 | FileCheck %s --check-prefix=RUNS
// RUNS: --runs=-1: expected 0 to 1000000
// RUN: not spectral-check %t/conv --device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: --device=tpu: unknown device 'tpu'
// RUN: mkdir -p %t/empty && not spectral-check %t/empty --device=host | FileCheck %s --check-prefix=EMPTY
// EMPTY: empty FAIL {{.*}}graph.spx
// RUN: rm %t/wrong/result0.npy && not spectral-check %t/wrong --device=host | FileCheck %s --check-prefix=NOREF
// NOREF: wrong FAIL {{.*}} holds no result0.npy to compare with
// RUN: spectral-check %t/conv --device=host --runs=0 --from-source --json=%t/source.json | FileCheck %s --check-prefix=SOURCE
// SOURCE: conv PASS 1 kernels (0 from the artifact
// RUN: FileCheck %s --check-prefix=SOURCEJSON < %t/source.json
// SOURCEJSON: "from_source": true
//
// A second save into one folder leaves that run's files alone: the first
// run's higher-numbered arguments and results are removed.
// RUN: spectral-run %S/../../e2e/softmax_regression_step.mlir --device=reference --random-inputs \
// RUN:   --save-npy=%t/again > /dev/null
// RUN: ls %t/again | FileCheck %s --check-prefix=SIX
// SIX: arg5.npy
// SIX: result3.npy
// RUN: spectral-run %S/../../../examples/spectral_conv.mlir --device=reference --random-inputs \
// RUN:   --save-npy=%t/again > /dev/null
// RUN: ls %t/again | FileCheck %s --check-prefix=THREE --implicit-check-not=arg3 --implicit-check-not=result1
// THREE: arg2.npy
// THREE: result0.npy

#!/bin/bash
# Runs the authors' algorithms (via oracle.StaticRoute, their classes) on every cell of their grid.
cd /work/oracle/src/floodns
CP=/work/oracle/harness/classes:/work/oracle/build/classes:$(cat /work/oracle/build/cp.txt)
TOPO=/work/oracle/src/floodns/runs/concurrent_jobs_1/0_core_failures/ring_size_2/ecmp/topology.properties
for J in 1 2 3 4 5; do for R in 2 4 8; do
  P=/work/oracle/src/floodns/traffic_pairs/concurrent_jobs_$J/ring_size_$R
  [ -d $P ] || continue
  for F in 0 1 4 8; do for A in ${ALGS:-ecmp mcvlc edge_coloring}; do
    O=/work/oracle/out/static/j${J}_r${R}_f${F}_$A.csv
    mkdir -p /work/oracle/tmp/ec_j${J}_r${R}_f${F}
    PYTHONHASHSEED=0 PATH=/work/oracle/bin:$PATH java -cp $CP oracle.StaticRoute $TOPO $P $F $A /work/oracle/tmp/ec_j${J}_r${R}_f${F} $O 2>&1 | grep -v INFO | grep -v "core id" > /work/oracle/out/static/j${J}_r${R}_f${F}_$A.log
  done; done
done; done
echo done

#!/bin/bash
# usage: mkrun.sh JOBS FAILURES RING ALG  -> prints run dir
set -e
J=$1; F=$2; R=$3; A=$4
SRC=/work/oracle/src/floodns/runs/concurrent_jobs_$J/${F}_core_failures/ring_size_$R/$A
DST=/work/oracle/runs/concurrent_jobs_$J/${F}_core_failures/ring_size_$R/$A
mkdir -p $DST
cp $SRC/topology.properties $SRC/schedule.csv $DST/
sed "s|^job_base_dir_schedule=.*|job_base_dir_schedule=/work/oracle/src/floodns/traffic_pairs/concurrent_jobs_$J/ring_size_$R|" $SRC/config.properties > $DST/config.properties
echo $DST

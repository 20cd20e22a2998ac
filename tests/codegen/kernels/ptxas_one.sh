#!/bin/sh
# One source of ptxas_check.cmake: compiles CUDA source $4 to PTX $5 for compute_90 with nvcc $1
# (include options $3, split at spaces), then runs ptxas $2 -v for sm_90 on it. Writes $5.log
# (nvcc's, then ptxas's messages) and $5.status (`ok`, or the step that failed).
# ptxas_check.cmake runs it on several sources at once through xargs -P.
nvcc=$1 ptxas=$2 includes=$3 source=$4 ptx=$5
# shellcheck disable=SC2086 # the include options are several words
if ! "$nvcc" -std=c++20 -ptx -arch=compute_90 $includes "$source" -o "$ptx" > "$ptx.log" 2>&1; then
  echo nvcc > "$ptx.status"
elif ! "$ptxas" -v -arch=sm_90 "$ptx" -o "$ptx.cubin" >> "$ptx.log" 2>&1; then
  echo ptxas > "$ptx.status"
else
  echo ok > "$ptx.status"
fi

# Sourced by run.sh and matrix.sh (bundled as .gpu/nvcomp-setup.sh): the bundle's binaries and
# nvCOMP unpacked, nvbench built against nvCOMP.
#
#   nvcomp_setup BUNDLE NVC WORK ARCH UNPACK_SECONDS NVCC_SECONDS
#
# Unpacks BUNDLE/bin.tar.xz into BUNDLE and nvCOMP's archive (BUNDLE/nvcomp-*.tar.xz, from its PyPI
# wheels) into NVC, exports LD_LIBRARY_PATH and PYTHONPATH for nvCOMP's library and Python API,
# and builds WORK/nvbench from BUNDLE/nvcomp/nvbench.cu for ARCH. Status 1 on failure.
nvcomp_setup() {
  local bundle=$1 nvc=$2 work=$3 arch=$4 unpack_s=$5 nvcc_s=$6 so
  rm -rf "$nvc" "${bundle:?}/bin"
  # python's tarfile: xz(1) need not be installed there.
  timeout "$unpack_s" python3 -c 'import sys, tarfile
for archive, dest in zip(sys.argv[1::2], sys.argv[2::2]):
    tarfile.open(archive).extractall(dest)' "$bundle/bin.tar.xz" "$bundle" "$(ls "$bundle"/nvcomp-*.tar.xz | head -1)" "$nvc" || return 1
  so=$(find "$nvc/nvidia/libnvcomp" -name 'libnvcomp.so.6' | head -1)
  [ -n "$so" ] || { echo "libnvcomp.so.6 not in the wheel"; return 1; }
  NVLIB=$(dirname "$so")
  ln -sf libnvcomp.so.6 "$NVLIB/libnvcomp.so" # the wheel has only the .so.6 name
  export LD_LIBRARY_PATH=$NVLIB:${LD_LIBRARY_PATH:-} PYTHONPATH=$nvc${PYTHONPATH:+:$PYTHONPATH}
  timeout "$nvcc_s" nvcc -O3 -std=c++17 -arch="$arch" -I"$nvc/nvidia/libnvcomp/include" \
    "$bundle/nvcomp/nvbench.cu" -L"$NVLIB" -lnvcomp -o "$work/nvbench"
}

#!/usr/bin/env bash
# suite_example_m55.sh — the bare-metal Cortex-M55 example (examples/m55_kws)
# builds from a clean folder with its Makefile and with its CMakeLists.txt,
# for the Cortex-M55 (AN547) and the Cortex-M4F (BOARD=an386), runs on QEMU's
# mps3-an547 and mps2-an386, and prints what the same main.c prints on the
# host.  Each image must place the arenas where its linker script says: the dtcm arena
# at DTCM's base in a NOLOAD section, the weights in the QSPI flash, the
# module's own tables there too and of the sizes the residency report gives
# (tests/check_tables.py), and .data stored apart from where it runs (copied
# at boot).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
MEMPLAN=${MEMPLAN:-$ROOT/build/${MODE:-asan}/memplan}
for tool in arm-none-eabi-gcc arm-none-eabi-nm arm-none-eabi-readelf qemu-system-arm; do
  if ! command -v $tool >/dev/null; then
    echo "NOTICE: $tool is absent: the Cortex-M55 example is not built"
    exit 0
  fi
done
# without CMake (setup.sh installs it) the Makefile builds still run
builds="make make_m4f"
if command -v cmake >/dev/null; then
  builds="make cmake make_m4f cmake_m4f"
else
  echo "NOTICE: cmake is absent: the example's CMakeLists.txt is not tried (the Makefile is)"
fi
has() { case " $builds " in *" $1 "*) return 0 ;; esac; return 1; }
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fail=0
ex=examples/m55_kws
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

# GNU make, out of tree
if make -C $ex BUILD="$out/make" MEMPLAN="$MEMPLAN" > "$out/make.log" 2>&1; then
  echo "ok   make builds the example"
else
  echo "FAIL make:"; tail -20 "$out/make.log"; exit 1
fi
# CMake
if ! has cmake; then :
elif cmake -S $ex -B "$out/cmake" -DMEMPLAN="$MEMPLAN" > "$out/cmake.log" 2>&1 &&
   cmake --build "$out/cmake" >> "$out/cmake.log" 2>&1; then
  echo "ok   cmake builds the example"
else
  echo "FAIL cmake:"; tail -20 "$out/cmake.log"; exit 1
fi
# the same for a Cortex-M4F (BOARD=an386: Arm's MPS2 AN386, linker_an386.ld)
if make -C $ex BOARD=an386 BUILD="$out/make_m4f" MEMPLAN="$MEMPLAN" > "$out/make_m4f.log" 2>&1; then
  echo "ok   make BOARD=an386 builds the example for the Cortex-M4F"
else
  echo "FAIL make BOARD=an386:"; tail -20 "$out/make_m4f.log"; exit 1
fi
if ! has cmake_m4f; then :
elif cmake -S $ex -B "$out/cmake_m4f" -DBOARD=an386 -DMEMPLAN="$MEMPLAN" > "$out/cmake_m4f.log" 2>&1 &&
   cmake --build "$out/cmake_m4f" >> "$out/cmake_m4f.log" 2>&1; then
  echo "ok   cmake -DBOARD=an386 builds the example for the Cortex-M4F"
else
  echo "FAIL cmake -DBOARD=an386:"; tail -20 "$out/cmake_m4f.log"; exit 1
fi
# the host: the same main.c and module, board_host.c for the board
if cc -std=c99 -Wall -Wextra -Werror -O1 -I$ex -Itests/example -I"$out/make/module/include" \
     -I"$out/make/module/kernels" -DKWS_WITH_KERNELS=1 $ex/main.c tests/example/board_host.c \
     "$out"/make/module/src/*.c "$out"/make/module/kernels/*.c -lm -o "$out/host" 2> "$out/host.log" &&
   "$out/host" > "$out/host.out"; then
  echo "ok   the example runs on the host"
else
  echo "FAIL host build or run:"; cat "$out/host.log"; exit 1
fi
grep -q '^class [0-9]*$' "$out/host.out" || { echo "FAIL host output has no class line"; fail=1; }

# build: elf, QEMU machine, core, dtcm base, flash range (lo:hi, hex)
for b in $builds; do
  case $b in
    *_m4f) elf="$out/$b/kws_m4f.elf" machine=mps2-an386 core=M4F dtcm=20000000 flash=00000000:00400000 ;;
    *) elf="$out/$b/kws_m55.elf" machine=mps3-an547 core=M55 dtcm=30000000 flash=38000000:38800000 ;;
  esac
  timeout 120 qemu-system-arm -M $machine -nographic -semihosting -kernel "$elf" \
    > "$out/$b.out" 2>&1
  rc=$?
  if [ $rc -eq 0 ] && cmp -s "$out/$b.out" "$out/host.out"; then
    echo "ok   $b image runs on the $core ($machine) and prints what the host prints"
  else
    echo "FAIL $b image: exit $rc, output:"; cat "$out/$b.out"; echo "host:"; cat "$out/host.out"; fail=1
  fi
  syms=$(arm-none-eabi-nm "$elf")
  lo=${flash%:*}
  for want in "$dtcm B kws_arena_dtcm_buffer" "${lo:0:2}[0-9a-f]* R kws_arena_const_qspi__blob"; do
    if grep -q "^$want\$" <<<"$syms"; then echo "ok   $b: $want"; else echo "FAIL $b: no '$want'"; fail=1; fi
  done
  # the module's own tables (module.tables_memory: qspi): as the report
  # counts them in the object, and in the QSPI flash in the image
  obj=$(find "$out/$b" \( -name 'kws_model.o' -o -name 'kws_model.c.o' -o -name 'kws_model.c.obj' \) | head -1)
  if [ -n "$obj" ] && python3 tests/check_tables.py --range $flash \
       "$out/$b/module/kws_residency.json" "$obj" "$elf" > "$out/$b.tables" 2>&1; then
    echo "ok   $b: the module's tables are as the report counts them, in flash ($(cat "$out/$b.tables"))"
  else
    echo "FAIL $b: the module's tables:"; cat "$out/$b.tables" 2>/dev/null; fail=1
  fi
  if arm-none-eabi-readelf -S -W "$elf" | grep -E ' \.bss\.dtcm +NOBITS ' >/dev/null; then
    echo "ok   $b: .bss.dtcm is NOBITS (no bytes in the image)"
  else
    echo "FAIL $b: .bss.dtcm is not NOBITS"; fail=1
  fi
  # .data runs in RAM (SRAMC; SSRAM23) and is stored in flash (ITCM; SSRAM1)
  case $b in *_m4f) run=0x20 load=0x0000 ;; *) run=0x11 load=0x10 ;; esac
  if arm-none-eabi-readelf -l -W "$elf" | awk -v r=$run -v l=$load '$1 == "LOAD" && index($3, r) == 1 && index($4, l) == 1 {f=1} END {exit !f}'; then
    echo "ok   $b: .data is stored in flash and runs in RAM"
  else
    echo "FAIL $b: no load-address split for .data"; fail=1
  fi
done
exit $fail

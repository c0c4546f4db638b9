#!/usr/bin/env bash
# suite_example_m55.sh — the bare-metal Cortex-M55 example (examples/m55_kws)
# builds from a clean folder with its Makefile and with its CMakeLists.txt,
# runs on QEMU's mps3-an547, and prints what the same main.c prints on the
# host.  The image must place the arenas where linker.ld says: the dtcm arena
# at DTCM's base in a NOLOAD section, the weights in the QSPI flash, the
# module's own tables there too and of the sizes the residency report gives
# (tests/check_tables.py), and .data stored apart from where it runs (copied
# at boot).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
MEMPLAN=${MEMPLAN:-$ROOT/build/${MODE:-asan}/memplan}
for tool in arm-none-eabi-gcc arm-none-eabi-nm arm-none-eabi-readelf qemu-system-arm cmake; do
  if ! command -v $tool >/dev/null; then
    echo "NOTICE: $tool is absent: the Cortex-M55 example is not built"
    exit 0
  fi
done
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
if cmake -S $ex -B "$out/cmake" -DMEMPLAN="$MEMPLAN" > "$out/cmake.log" 2>&1 &&
   cmake --build "$out/cmake" >> "$out/cmake.log" 2>&1; then
  echo "ok   cmake builds the example"
else
  echo "FAIL cmake:"; tail -20 "$out/cmake.log"; exit 1
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

# the same sources for a Cortex-M4F, compile only (QEMU has no M4F board)
mkdir -p "$out/m4"
if (cd "$out/m4" && arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard \
      -std=c99 -O2 -Wall -Wextra -Werror -I"$ROOT/$ex" -I"$out/make/module/include" \
      -I"$out/make/module/kernels" -DKWS_WITH_KERNELS=1 -c "$ROOT/$ex/main.c" \
      "$out"/make/module/src/*.c "$out"/make/module/kernels/*.c) 2> "$out/m4.log"; then
  echo "ok   the module and main.c compile warning-free for a Cortex-M4F"
else
  echo "FAIL Cortex-M4F compile:"; cat "$out/m4.log"; fail=1
fi

for b in make cmake; do
  elf="$out/$b/kws_m55.elf"
  timeout 120 qemu-system-arm -M mps3-an547 -nographic -semihosting -kernel "$elf" \
    > "$out/$b.out" 2>&1
  rc=$?
  if [ $rc -eq 0 ] && cmp -s "$out/$b.out" "$out/host.out"; then
    echo "ok   $b image runs on the M55 and prints what the host prints"
  else
    echo "FAIL $b image: exit $rc, output:"; cat "$out/$b.out"; echo "host:"; cat "$out/host.out"; fail=1
  fi
  syms=$(arm-none-eabi-nm "$elf")
  for want in "30000000 B kws_arena_dtcm_buffer" "38[0-9a-f]* R kws_arena_const_qspi__blob"; do
    if grep -q "^$want\$" <<<"$syms"; then echo "ok   $b: $want"; else echo "FAIL $b: no '$want'"; fail=1; fi
  done
  # the module's own tables (module.tables_memory: qspi): as the report
  # counts them in the object, and in the QSPI flash in the image
  obj=$(find "$out/$b" \( -name 'kws_model.o' -o -name 'kws_model.c.o' -o -name 'kws_model.c.obj' \) | head -1)
  if [ -n "$obj" ] && python3 tests/check_tables.py --range 38000000:38800000 \
       "$out/$b/module/kws_residency.json" "$obj" "$elf" > "$out/$b.tables" 2>&1; then
    echo "ok   $b: the module's tables are as the report counts them, in QSPI ($(cat "$out/$b.tables"))"
  else
    echo "FAIL $b: the module's tables:"; cat "$out/$b.tables" 2>/dev/null; fail=1
  fi
  if arm-none-eabi-readelf -S -W "$elf" | grep -E ' \.bss\.dtcm +NOBITS ' >/dev/null; then
    echo "ok   $b: .bss.dtcm is NOBITS (no bytes in the image)"
  else
    echo "FAIL $b: .bss.dtcm is not NOBITS"; fail=1
  fi
  # .data runs in SRAMC and is stored in ITCM
  if arm-none-eabi-readelf -l -W "$elf" | awk '$1 == "LOAD" && $3 ~ /^0x11/ && $4 ~ /^0x10/ {f=1} END {exit !f}'; then
    echo "ok   $b: .data is loaded in ITCM and runs in SRAMC"
  else
    echo "FAIL $b: no load-address split for .data"; fail=1
  fi
done
exit $fail

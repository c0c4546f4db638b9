#!/usr/bin/env bash
# suite_rewrite.sh — the rewrites of memory.in_place (PAD folding, copies
# made views, concatenations elided) give the bytes of the plain module.
# For every model with PADs in front of convolutions (memplan's fixtures pad_conv, int8 with folds and refusals; pad_conv_f32;
# pad_conv_s16, 16x8; the padded MobileNetV2 block) and every target's
# kernels (generic, and cortex-m55, whose specialised convolutions run
# portably on the host and with Helium on the emulated Cortex-M55),
# `memplan convert` writes the module twice: memory.in_place off (the PADs
# run) and on (they fold into their convolutions, and outputs
# overlap inputs where the kernels allow).  Both are built with gcc
# -Wall -Wextra -Werror and ASan + UBSan and run by tests/rewrite/fold_app.c
# on garbage-filled scratch, twice per module; the cortex-m55 modules also
# on qemu's mps3-an547.  The folded module's outputs must equal the
# unfolded one's byte for byte on each core, both runs alike (and int8
# outputs the host's on the Cortex-M55).  The
# expected bytes thus come from running the unfolded module, never from a
# formula.  Also checked: the folds the summary reports, that a folded
# PAD's output has no storage, that the residency report validates, and
# that in_place's scratch is at most the unfolded plan's; for the view
# fixtures (views, views_f32, heads), the views and elided concatenations
# the summary and the JSON report, and that every view lies in its root at
# the root's offset plus its own.  Then TFLM's answers: the multi-operator,
# slice, split, unpack, concatenation and pack conformance cases
# (../shared/conformance, $MEMPLAN_CONFORMANCE) with memory.in_place,
# through suite_conformance.  The same for memory.op_order min_peak: the
# branch fixtures run in the order found give the model-order module's
# bytes, every operator's outputs included (host, ASan + UBSan, garbage
# scratch), and the multi-operator conformance cases it reorders match
# TFLM in that order.  And memory.patch auto: every held-out network it
# patches runs its stage tile by tile and gives the in_place module's bytes
# (outputs, and every operator's outside the stage), generic and
# cortex-m55, host and Cortex-M55; the multi-operator conformance cases
# match TFLM with it.  These conformance runs judge refusals as
# suite_conformance does: a case convert refuses with these options must be
# listed in tests/expected_refusals.txt, and a listed one must be refused.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${MEMPLAN_BUILD:-$ROOT/build/${MODE:-asan}}
MEMPLAN=${MEMPLAN:-$BUILD/memplan}
MKMODEL=$BUILD/mkmodel
for f in "$MEMPLAN" "$MKMODEL"; do
  [ -x "$f" ] || { echo "missing $f: run 'make MODE=${MODE:-asan} tests' first"; exit 1; }
done
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
FOLD_FLAGS=
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
fail=0
bad() { echo "FAIL $*"; fail=1; }
have_arm=1
for tool in arm-none-eabi-gcc qemu-system-arm; do command -v $tool >/dev/null || have_arm=0; done
M55_CFLAGS="-std=c99 -Wall -Wextra -Werror -O2 -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -ffunction-sections -fdata-sections"
M55_LDFLAGS="-mcpu=cortex-m55 -mthumb -mfloat-abi=hard -nostartfiles --specs=nano.specs --specs=nosys.specs \
  -T $ROOT/tests/target/an547.ld -Wl,--gc-sections -Wl,--no-warn-rwx-segments"
# the Cortex-M4F (DSP paths; qemu mps2-an386) runs the recurrent models
M4F_CFLAGS="-std=c99 -Wall -Wextra -Werror -O2 -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -ffunction-sections -fdata-sections"
M4F_LDFLAGS="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -nostartfiles --specs=nano.specs --specs=nosys.specs \
  -T $ROOT/tests/target/an386.ld -Wl,--gc-sections -Wl,--no-warn-rwx-segments"
if [ $have_arm = 1 ]; then
  mkdir -p "$out/m55" "$out/m4f"
  for f in tests/target/startup.c tests/target/semihost.c; do
    arm-none-eabi-gcc $M55_CFLAGS -Itests/target -c "$f" -o "$out/m55/$(basename "${f%.c}").o"
    arm-none-eabi-gcc $M4F_CFLAGS -Itests/target -c "$f" -o "$out/m4f/$(basename "${f%.c}").o"
  done
else
  echo "NOTICE: arm-none-eabi-gcc or qemu-system-arm is absent: the Cortex-M55 runs are skipped"
fi

# Every module carries the same kernels/ folder: compile it once per
# content and core, and link those objects.  Prints the object list.  The
# cases run side by side: the first to need a folder compiles it, holding
# its lock, and the others wait for it.
kernel_objs() { # MODULE_DIR host|m55|m4f
  local key dir f
  key=$(cat "$1"/kernels/* | sha1sum | cut -c1-16)
  dir="$out/kernels-$key-$2"
  (
    flock 9
    [ -f "$dir/done" ] && exit 0
    mkdir -p "$dir"
    for f in "$1"/kernels/*.c; do
      if [ "$2" = host ]; then
        cc -std=c99 -Wall -Wextra -Werror -O1 -g $SAN -I"$1/kernels" -c "$f" \
          -o "$dir/$(basename "${f%.c}").o" || exit 1
      elif [ "$2" = m4f ]; then
        arm-none-eabi-gcc $M4F_CFLAGS -I"$1/kernels" -c "$f" -o "$dir/$(basename "${f%.c}").o" || exit 1
      else
        arm-none-eabi-gcc $M55_CFLAGS -I"$1/kernels" -c "$f" -o "$dir/$(basename "${f%.c}").o" || exit 1
      fi
    done
    touch "$dir/done"
  ) 9> "$dir.lock" || return 1
  echo "$dir"/*.o
}

# Build module folder $1 with tests/rewrite/fold_app.c for the host (ASan
# + UBSan) and run it into $1.out; $2 names the case in failures.
host_run() {
  local kobjs
  if kobjs=$(kernel_objs "$1" host 2> "$1.cc") &&
     cc -std=c99 -Wall -Wextra -Werror -O1 -g $SAN -I"$1/include" -I"$1/kernels" \
       -DFX_WITH_KERNELS=1 $FOLD_FLAGS tests/rewrite/fold_app.c "$1"/src/*.c $kobjs -lm \
       -o "$1.app" 2>> "$1.cc"; then
    "$1.app" > "$1.out" 2> "$1.err" || { bad "$2: run"; cat "$1.out" "$1.err" | tail -20; }
  else
    bad "$2: build"; head -20 "$1.cc"
  fi
}
# The output bytes fold_app printed in $1.
out_bytes() { grep -o '[0-9]* bytes' "$1" | awk '{s += $1} END {print s}'; }
# fold_app's lines in $1, the operators' without their positions and
# sorted, then the outputs' in order: the same for two modules that run the
# same operators in different orders.
by_op() { grep '^op ' "$1" | sed 's/^op [0-9]* /op /' | sort; grep -v '^op ' "$1"; }

# memory.patch auto on the in_place module of $1 (model), $2 (target), $3
# (planner), the in_place module's folder $4: when a stage is patched, the
# module runs it tile by tile and must give the in_place module's outputs
# and every operator's outputs outside the stage (the stage's output
# included) byte for byte, on the host and, for cortex-m55, on the
# Cortex-M55 ($5 = 1).  The expected bytes are the unpatched module's.
patched_case() {
  local m=$1 target=$2 planner=$3 on=$4 m55=$5 pd="$out/$1-$2-$3-patch" kobjs
  if ! "$MEMPLAN" convert --quiet --model.path "$out/$m.tflite" --module.path "$pd" \
       --module.prefix fx --module.target "$target" --memory.in_place=true --memory.patch=auto \
       --memory.planner "$planner" --memory.dump_residency_json=true > "$pd.log" 2>&1; then
    bad "$m $target $planner patch auto: convert"; cat "$pd.log"; return
  fi
  if ! grep -q '"patch"' "$pd/fx_residency.json"; then
    echo "ok   $m $target $planner: memory.patch auto keeps no stage (none plans smaller)"; return
  fi
  host_run "$pd" "$m $target $planner patch auto"
  same_outside() { # PLAIN.out PATCHED.out: equal outside the stage
    python3 - "$1" "$2" "$pd/fx_residency.json" <<'PY'
import json, sys
pt = json.load(open(sys.argv[3]))["planner"]["patch"]
def lines(f):
    ops, rest = {}, []
    for l in open(f).read().splitlines():
        if l.startswith("op "):
            ops[int(l.split()[1])] = l
        else:
            rest.append(l)
    return ops, rest
(po, pr), (qo, qr) = lines(sys.argv[1]), lines(sys.argv[2])
stages = [pt] + pt.get("next_stages", [])
keep = [k for k in po if all(k < s["first_op"] or k >= s["last_op"] for s in stages)]
bad = [k for k in keep if po[k] != qo.get(k)]
if pr != qr or bad or not keep:
    sys.exit(f"differ: outputs {'same' if pr == qr else 'differ'}, operators {bad[:5]}")
st = ", ".join(f"{s['first_op']}..{s['last_op']} on {s['rows']}x{s['cols']} tiles" for s in stages)
extra = round(sum(s["extra_macs_percent"] for s in stages), 2)
print(f"outputs and {len(keep)} operators' outputs, stage{'s' if len(stages) > 1 else ''} {st}, +{extra} % MACs, {pt['saved_bytes']} bytes saved")
PY
  }
  local r=
  if [ -s "$pd.out" ] && [ "$(tail -1 "$pd.out")" = "two runs alike" ] && r=$(same_outside "$on.out" "$pd.out"); then
    echo "ok   $m $target $planner patch auto: the tiled module gives the in_place module's $r"
  else
    bad "$m $target $planner patch auto: the tiled module's bytes differ from the in_place module's: $r"
  fi
  [ "$target" = cortex-m55 ] && [ "$m55" = 1 ] || return
  mkdir -p "$pd.m55"
  if kobjs=$(kernel_objs "$pd" m55 2> "$pd.m55.cc") &&
     (cd "$pd.m55" && arm-none-eabi-gcc $M55_CFLAGS -DFOLD_TARGET -I"$pd/include" -I"$pd/kernels" \
        -I"$ROOT/tests/target" -DFX_WITH_KERNELS=1 $FOLD_FLAGS -c "$ROOT/tests/rewrite/fold_app.c" \
        "$pd"/src/*.c) 2>> "$pd.m55.cc" &&
     arm-none-eabi-gcc $M55_LDFLAGS "$pd.m55"/*.o $kobjs "$out/m55/startup.o" "$out/m55/semihost.o" \
        -lm -lc -lnosys -o "$pd.elf" 2>> "$pd.m55.cc"; then
    timeout 300 qemu-system-arm -M mps3-an547 -nographic -semihosting -kernel "$pd.elf" \
      > "$pd.m55.out" 2>&1 || bad "$m $target $planner patch auto: the Cortex-M55 run failed"
    if [ -s "$on.m55.out" ] && r=$(same_outside "$on.m55.out" "$pd.m55.out"); then
      echo "ok   $m $target $planner patch auto on the Cortex-M55: the in_place module's $r"
    else
      bad "$m $target $planner patch auto on the Cortex-M55: bytes differ from the in_place module's"
    fi
  else
    bad "$m $target $planner patch auto: Cortex-M55 build"; head -20 "$pd.m55.cc"
  fi
}

# model:folds expected:planner[:views:concatenations elided]
# (slices: no PAD, but SLICE outputs over the inputs they read last, which
# beats making the first one a view; views, views_f32: SPLIT / SLICE /
# UNPACK views and an elided CONCATENATION, with the refusals next to them;
# heads: FULLY_CONNECTED heads written into their concatenation, a SPLIT
# into heads, a graph output that is an elided concatenation).
# Then held-out networks nobody tuned the contracts for (mkmodel
# --list-nets): a PyTorch-style MobileNetV2 0.35 at 96x96 with a PAD
# before every 3x3 convolution, int8 and float32; a float32 MobileNetV1
# VWW; an int8 ResNet (ADD skips, stride-2 1x1 shortcuts); an inception-
# style int8 model (CONCATENATION, depth multiplier 2, dilation 2); a 16x8
# model; the MobileNetV2 as TF / Keras write it with SAME padding (no PAD)
# and as keras.applications writes it (asymmetric (0,1) PAD / PADV2 before
# the stride-2 3x3s), int8 and float32; PADV2s whose value is not the zero
# point (they must not fold) beside ones that fold; a DS-CNN keyword
# spotter (10x4 stem, AVERAGE_POOL head); an int8 model with float32 I/O
# (QUANTIZE, DEQUANTIZE); a 16x8 residual model (ADD of three scales,
# PADV2, MEAN); two branches from the graph input, an ADD of two scales and
# three graph outputs (two heads and the feature map they read); an SVDF
# keyword spotter, a tiny int8 LSTM classifier and a 16x8 LSTM (int16
# activations, int64 biases), each run as a stream of 4 frames from a
# reset state (its state carried from frame to frame; the cortex-m55
# module's host bytes must be the generic module's, and the plain
# cortex-m55 module built for the Cortex-M4F, qemu's mps2-an386, must
# give them too); a
# PyTorch-style ResNet, int8 and
# float32, with a PAD before every convolution and before the stem's max
# pool (pad_pool, pad_pool_f32: the PADs that fold into a max pool and
# those that must not).  The float32 MobileNetV2s (too
# large for the emulator's RAM) run only on the host.  REWRITE_FILTER (a
# regex on the model name) runs a subset; REWRITE_PLANNERS (a list) runs
# every case with each of those planners instead of its own, and
# REWRITE_TARGETS (default "generic cortex-m55") with those targets only.
# The cases run $JOBS (2) at a time, their lines printed in order.
cases="pad_conv:4:greedy_by_size pad_conv_f32:2:greedy pad_conv_s16:2:greedy padded_block:1:greedy
       pad_pool:3:greedy pad_pool_f32:1:hill_climb
       slices:0:hill_climb views:0:hill_climb:3:1 views_f32:0:greedy_by_size:2:0
       heads:0:greedy:1:2 fire:0:hill_climb:0:3 fire_f32:0:greedy:0:3
       mobilenet_v2_96_035:18:hill_climb mobilenet_v2_96_035_f32:18:greedy vww_96_f32:0:greedy
       resnet_48:2:exact branches_40:1:greedy_by_size:0:2 s16_net_32:2:greedy s16_bias_24:0:greedy
       mobilenet_v2_96_035_tf:0:greedy_by_size mobilenet_v2_96_035_keras:5:hill_climb
       mobilenet_v2_96_035_keras_f32:5:greedy pad_values_32:2:hill_climb ds_cnn_kws:0:greedy
       float_io_32:0:greedy_by_size s16_res_24:1:greedy two_heads_32:0:hill_climb
       svdf_kws:0:exact lstm_8x12:0:greedy_by_size lstm16_8x12:0:greedy
       resnet_pt_64:10:greedy resnet_pt_64_f32:10:hill_climb"
nets=" $("$MKMODEL" --list-nets | tr '\n' ' ') "
# one case (model:folds:planner[:views:concatenations]): every target and
# planner of it; its lines on stdout, "FAIL ..." for each failure, and its
# exit status 1 when one failed
rewrite_case() {
  local c=$1
  IFS=: read -r m want0 planner0 wviews0 wcats0 <<< "$c"
  wviews0=${wviews0:-0} wcats0=${wcats0:-0}
  [[ $m =~ ${REWRITE_FILTER:-.} ]] || return 0
  "$MKMODEL" fixture "$m" "$out/$m.tflite" || { bad "mkmodel $m"; return 1; }
  FOLD_FLAGS=
  case $m in svdf_kws|lstm_8x12|lstm16_8x12) FOLD_FLAGS=-DFOLD_FRAMES=4u;; esac
  combos=
  for pl in ${REWRITE_PLANNERS:-$planner0}; do
    for target in ${REWRITE_TARGETS:-generic cortex-m55}; do combos="$combos $target/$pl"; done
  done
  for combo in $combos; do
    target=${combo%/*} planner=${combo#*/}
    on_m55=$have_arm
    case $m in mobilenet_v2_96_035_f32|mobilenet_v2_96_035_keras_f32) on_m55=0;; esac
    for ip in false true; do
      d="$out/$m-$target-$planner-$ip"
      if ! "$MEMPLAN" convert --quiet --model.path "$out/$m.tflite" --module.path "$d" \
           --module.prefix fx --module.target "$target" --memory.in_place=$ip \
           --memory.planner "$planner" \
           --memory.dump_residency_json=true > "$d.log" 2>&1; then
        bad "$m $target $planner in_place=$ip: convert"; cat "$d.log"; continue
      fi
      "$MEMPLAN" plan "$out/$m.tflite" --module.target "$target" --memory.in_place=$ip \
        --planner "$planner" \
        > "$d.plan" 2>&1 || bad "$m $target $planner in_place=$ip: plan"
      host_run "$d" "$m $target $planner in_place=$ip"
    done
    off="$out/$m-$target-$planner-false" on="$out/$m-$target-$planner-true"
    [ -s "$off.out" ] && [ -s "$on.out" ] || continue
    if cmp -s "$off.out" "$on.out" && [ "$(tail -1 "$on.out")" = "two runs alike" ]; then
      echo "ok   $m $target $planner: the in_place module gives the plain module's $(out_bytes "$on.out") output bytes and its $(grep -c '^op ' "$on.out") operators' outputs"
    else
      bad "$m $target $planner: folded outputs differ from the unfolded module's"
    fi
    # the Cortex-M55 kernels on the emulated core (Helium paths included)
    if [ "$target" = cortex-m55 ] && [ $on_m55 = 1 ]; then
      for ip in false true; do
        d="$out/$m-$target-$planner-$ip"
        mkdir -p "$d.m55"
        if kobjs=$(kernel_objs "$d" m55 2> "$d.m55.cc") &&
           (cd "$d.m55" && arm-none-eabi-gcc $M55_CFLAGS -DFOLD_TARGET -I"$d/include" -I"$d/kernels" \
              -I"$ROOT/tests/target" -DFX_WITH_KERNELS=1 $FOLD_FLAGS -c "$ROOT/tests/rewrite/fold_app.c" \
              "$d"/src/*.c) 2>> "$d.m55.cc" &&
           arm-none-eabi-gcc $M55_LDFLAGS "$d.m55"/*.o $kobjs "$out/m55/startup.o" "$out/m55/semihost.o" \
              -lm -lc -lnosys -o "$d.elf" 2>> "$d.m55.cc"; then
          timeout 300 qemu-system-arm -M mps3-an547 -nographic -semihosting -kernel "$d.elf" \
            > "$d.m55.out" 2>&1 || bad "$m $target $planner in_place=$ip: the Cortex-M55 run failed: $(tail -2 "$d.m55.out")"
        else
          bad "$m $target $planner in_place=$ip: Cortex-M55 build"; head -20 "$d.m55.cc"
        fi
      done
      if cmp -s "$off.m55.out" "$on.m55.out" && [ "$(tail -1 "$on.m55.out")" = "two runs alike" ]; then
        same=$(cmp -s "$on.m55.out" "$on.out" && echo ", the host's bytes too" || echo "; not the host's bytes")
        echo "ok   $m $target $planner on the Cortex-M55: the in_place module gives the plain module's bytes$same"
        case $m in *f32) ;; *) cmp -s "$on.m55.out" "$on.out" || bad "$m: the Cortex-M55's integer bytes differ from the host's";; esac
      else
        bad "$m $target $planner on the Cortex-M55: folded outputs differ from the unfolded module's"
      fi
    fi
    # the recurrent models' Cortex-M kernels (mpk_recurrent_fast.c, the
    # portable path on the host), and the 16x8 convolutions with an int32
    # accumulator (no bias, an int32 bias), give the reference kernels'
    # bytes: with the check on the Cortex-M55 above, so do their Helium
    # paths; and the plain module built for the Cortex-M4F (DSP paths)
    # gives the host's
    case $m in svdf_kws|lstm_8x12|lstm16_8x12|s16_bias_24)
      ref="$out/$m-generic-$planner-false.out"
      if [ "$target" = cortex-m55 ] && [ -s "$ref" ]; then
        if cmp -s "$ref" "$off.out"; then
          echo "ok   $m $planner: the cortex-m55 kernels give the reference kernels' $(out_bytes "$off.out") output bytes and its $(grep -c '^op ' "$off.out") operators' outputs"
        else
          bad "$m $planner: the cortex-m55 module's outputs differ from the generic module's"
        fi
      fi
      if [ "$target" = cortex-m55 ] && [ $on_m55 = 1 ]; then
        mkdir -p "$off.m4f"
        if kobjs=$(kernel_objs "$off" m4f 2> "$off.m4f.cc") &&
           (cd "$off.m4f" && arm-none-eabi-gcc $M4F_CFLAGS -DFOLD_TARGET -I"$off/include" -I"$off/kernels" \
              -I"$ROOT/tests/target" -DFX_WITH_KERNELS=1 $FOLD_FLAGS -c "$ROOT/tests/rewrite/fold_app.c" \
              "$off"/src/*.c) 2>> "$off.m4f.cc" &&
           arm-none-eabi-gcc $M4F_LDFLAGS "$off.m4f"/*.o $kobjs "$out/m4f/startup.o" "$out/m4f/semihost.o" \
              -lm -lc -lnosys -o "$off.m4f.elf" 2>> "$off.m4f.cc"; then
          timeout 300 qemu-system-arm -M mps2-an386 -nographic -semihosting -kernel "$off.m4f.elf" \
            > "$off.m4f.out" 2>&1 || bad "$m $target $planner: the Cortex-M4F run failed: $(tail -2 "$off.m4f.out")"
          if cmp -s "$off.m4f.out" "$off.out"; then
            echo "ok   $m $target $planner on the Cortex-M4F: the host's bytes"
          else
            bad "$m $target $planner: the Cortex-M4F's bytes differ from the host's"
          fi
        else
          bad "$m $target $planner: Cortex-M4F build"; head -20 "$off.m4f.cc"
        fi
      fi;;
    esac
    # memory.patch auto: the in_place module with a stage run tile by tile
    # (PATCH=0 skips it)
    [ "${PATCH:-1}" = 1 ] && patched_case "$m" "$target" "$planner" "$on" "$on_m55"
    # another planner than the case's own (REWRITE_PLANNERS) may keep the
    # graph without rewrites: the counts are then what its summary
    # reports, checked against the listing and the JSON as usual
    want=$want0 wviews=$wviews0 wcats=$wcats0
    if [ "$planner" != "$planner0" ]; then
      want=$(grep -c "(folded into op" "$on.plan")
      wviews=$(sed -n 's/^rewrites: \([0-9]*\) views\? (SPLIT.*/\1/p' "$on.plan")
      wcats=$(sed -n 's/^rewrites: [0-9]* views\? (SPLIT.*, \([0-9]*\) CONCATENATIONs\? elided.*/\1/p' "$on.plan")
      wviews=${wviews:-0} wcats=${wcats:-0}
    fi
    if [ "$wviews$wcats" != 00 ]; then
      grep -q "^rewrites: $wviews views\? (SPLIT, SLICE and kin: outputs are bytes of their input), $wcats CONCATENATIONs\? elided" "$on.plan" ||
        bad "$m $target $planner: the summary does not report $wviews views and $wcats elided concatenations: $(grep rewrites "$on.plan")"
    fi
    if [ "$want" = 0 ]; then
      if [ "$planner" = "$planner0" ]; then
        grep "^rewrites" "$on.plan" | grep -qv " views\? (SPLIT" && bad "$m $target $planner: a PAD rewrite is reported"
        [ "$wviews$wcats" = 00 ] && grep -q "^rewrites" "$on.plan" && bad "$m $target $planner: a rewrite is reported"
      fi
    else
      grep -q "^rewrites: $want PADs\? folded" "$on.plan" ||
        bad "$m $target $planner: the summary does not report $want folded PADs: $(grep rewrites "$on.plan")"
    fi
    grep -q "^rewrites" "$off.plan" && bad "$m $target $planner: in_place off reports a rewrite"
    n=$(grep -c "(folded into op" "$on.plan")
    [ "$n" = "$want" ] || bad "$m $target $planner: $n operators listed as folded, expected $want"
    python3 - "$off/fx_residency.json" "$on/fx_residency.json" "$want" "$wviews" "$wcats" \
      "$([ "$planner" = "$planner0" ] && echo own || echo other)" <<'PY' || fail=1
import json, sys
off, on, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
wviews, wcats = int(sys.argv[4]), int(sys.argv[5])
rw = on["planner"].get("rewrites", {})
assert rw.get("views", 0) == wviews and rw.get("concats_elided", 0) == wcats, rw
# every view lies inside its root, at the root's offset plus its own
ten = {t["id"]: t for t in on["tensors"]}
for t in on["tensors"]:
    if t["alias_of"] is None:
        continue
    r = ten[t["alias_of"]]
    assert t["offset"] == r["offset"] + t["alias_offset"], t
    assert t["alias_offset"] + t["size"] <= r["size"], (t, r)
    assert t["memory"] == r["memory"] and t["region_id"] == r["region_id"], t
    # a strided view's rows lie inside the root too
    if "alias_stride" in t:
        rows = t["size"] // t["alias_row"]
        assert rows * t["alias_row"] == t["size"] and t["alias_row"] <= t["alias_stride"], t
        assert t["alias_offset"] + (rows - 1) * t["alias_stride"] + t["alias_row"] <= r["size"], (t, r)
# a view operator runs nothing, and its outputs (inputs, for an elided
# concatenation) are views
for o in on["ops"]:
    if o["operator"] in ("SPLIT", "SPLIT_V", "UNPACK", "SLICE", "STRIDED_SLICE") and o["view"]:
        assert all(ten[x]["alias_of"] is not None for x in o["outputs"] if x in ten), o
    if o["operator"] in ("CONCATENATION", "PACK") and o["view"]:
        assert all(ten[x]["alias_of"] is not None for x in o["inputs"]), o
n_views = sum(1 for o in on["ops"] if o["view"] and o["operator"] in ("SPLIT", "SPLIT_V", "UNPACK", "SLICE", "STRIDED_SLICE"))
n_cats = sum(1 for o in on["ops"] if o["view"] and o["operator"] in ("CONCATENATION", "PACK"))
assert (n_views, n_cats) == (wviews, wcats), (n_views, n_cats)
assert not any(o["view"] and o["operator"] not in ("RESHAPE", "SQUEEZE", "EXPAND_DIMS", "BITCAST") for o in off["ops"])
folded = [o for o in on["ops"] if "folded_into" in o]
assert len(folded) == want, folded
assert rw.get("pads_folded", 0) == want
assert "rewrites" not in off["planner"] and not any("folded_into" in o for o in off["ops"])
# the report lists the tensors with storage: a folded PAD's output is not
# among them; its size is the unfolded report's
tens_on = {t["id"] for t in on["tensors"]}
tens_off = {t["id"]: t for t in off["tensors"]}
padded = 0
for o in folded:
    conv = on["ops"][o["folded_into"]]
    assert conv.get("folded_pad") == o["index"], (o, conv)
    assert conv["inputs"][0] == o["inputs"][0], (o, conv)
    assert off["ops"][conv["index"]]["inputs"][0] == o["outputs"][0], (o, conv)
    assert o["outputs"][0] not in tens_on, ("a folded PAD's output has storage", o)
    padded += tens_off[o["outputs"][0]]["size"]
assert on["planner"].get("rewrites", {}).get("padded_bytes", 0) == padded
def scratch(r, key="size"):
    return sum(a[key] for a in r["arenas"] if a["role"] == "scratch")
assert scratch(on) <= scratch(off), (scratch(on), scratch(off))
# never above the model's tensor-level bound (the unfolded graph's); with
# another planner than the case's (REWRITE_PLANNERS), unless that planner's
# plain plan is above it too (greedy's layout is not changed)
bound = scratch(off, "lower_bound")
if sys.argv[6] == "own" or scratch(off) <= bound:
    assert scratch(on) <= bound, (scratch(on), bound)
print("ok   %s: %d PADs folded, %d padded bytes not stored, %d views, %d concatenations elided, scratch %d -> %d bytes"
      % (sys.argv[2].split("/")[-2], want, padded, wviews, wcats, scratch(off), scratch(on)))
PY
  done
  return $fail
}
# the cases $JOBS at a time, each into a log of its own, printed in order
JOBS=${JOBS:-2}
k=0
for c in $cases; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  (fail=0; rewrite_case "$c" > "$out/case-$k.log" 2>&1; echo $? > "$out/case-$k.rc") &
  k=$((k + 1))
done
wait
for ((i = 0; i < k; i++)); do
  cat "$out/case-$i.log"
  [ "$(cat "$out/case-$i.rc" 2>/dev/null)" = 0 ] || fail=1
done
# greedy lays the views fixture's rewritten graph out above its
# tensor-level bound: greedy_by_size's layout is kept, the rewrites too, and
# said so; in_place still costs no byte
if [[ views =~ ${REWRITE_FILTER:-.} ]]; then
"$MEMPLAN" plan "$out/views.tflite" --memory.in_place=true > "$out/greedy.plan" 2>&1 &&
  "$MEMPLAN" plan "$out/views.tflite" > "$out/greedy_off.plan" 2>&1 || bad "views greedy: plan"
if grep -q "^in place: planner greedy's layout needs [0-9]* bytes of scratch, above the tensor-level bound of [0-9]*; greedy_by_size's layout kept" "$out/greedy.plan" &&
   grep -q "^rewrites: 3 views" "$out/greedy.plan"; then
  a=$(awk '$3 == "scratch" {print $6}' "$out/greedy.plan")
  lb=$(sed -n 's/^arena 0: in place, .* the tensor-level bound of \([0-9]*\).*/\1/p' "$out/greedy.plan")
  b=$(awk '$3 == "scratch" {print $6}' "$out/greedy_off.plan")
  if [ -n "$a" ] && [ -n "$b" ] && [ -n "$lb" ] && [ "$a" -le "$b" ] && [ "$a" -le "$lb" ]; then
    echo "ok   views greedy: greedy_by_size's layout kept, scratch $b -> $a bytes (bound $lb)"
  else
    bad "views greedy: in_place scratch '$a' above '$b' or the bound '$lb'"
  fi
else
  bad "views greedy: no note that another planner's layout was kept"; cat "$out/greedy.plan"
fi
fi
# with scratch split between a 1 KiB dtcm and sram, greedy places
# views_f32's rewritten graph worse than the graph without its views: the
# rewrites are dropped, and said so; in_place still costs no byte
if [[ views_f32 =~ ${REWRITE_FILTER:-.} ]]; then
split=(--memory.constraints '[{"name":"dtcm","max_size":1024},{"name":"sram"}]')
"$MKMODEL" fixture views_f32 "$out/views_f32.tflite" &&
"$MEMPLAN" plan "$out/views_f32.tflite" --memory.in_place=true "${split[@]}" > "$out/split.plan" 2>&1 &&
  "$MEMPLAN" plan "$out/views_f32.tflite" "${split[@]}" > "$out/split_off.plan" 2>&1 || bad "views_f32 split: plan"
if grep -q "^rewrites: not kept (0 PADs folded, 2 views, 0 CONCATENATIONs elided): without them, planner greedy needs [0-9]* bytes less" "$out/split.plan"; then
  a=$(awk '$3 == "scratch" {s += $6} END {print s}' "$out/split.plan")
  b=$(awk '$3 == "scratch" {s += $6} END {print s}' "$out/split_off.plan")
  if [ -n "$a" ] && [ -n "$b" ] && [ "$a" -le "$b" ]; then
    echo "ok   views_f32 split: rewrites dropped, scratch $b -> $a bytes"
  else
    bad "views_f32 split: in_place scratch '$a' above '$b'"
  fi
else
  bad "views_f32 split: no note that the rewrites were dropped"; cat "$out/split.plan"
fi
fi
# memory.op_order min_peak: the module runs its operators in another
# topological order (memplan's branch fixtures, whose better orders are
# computed by hand in fixtures.c), with in_place off and
# on; its outputs must be the model-order module's bytes on garbage-filled
# scratch, run twice, and the summary and the report must say what moved
for c in branch_add:448 branch_concat:448; do
  IFS=: read -r m fell <<< "$c"
  "$MKMODEL" fixture "$m" "$out/$m.tflite" || { bad "mkmodel $m"; continue; }
  for ip in false true; do
    for order in model min_peak; do
      d="$out/order-$m-$ip-$order"
      if ! "$MEMPLAN" convert --model.path "$out/$m.tflite" --module.path "$d" --module.prefix fx \
           --memory.in_place=$ip --memory.op_order=$order --memory.dump_residency_json=true \
           > "$d.log" 2>&1; then
        bad "$m in_place=$ip op_order=$order: convert"; cat "$d.log"; continue
      fi
      host_run "$d" "$m in_place=$ip op_order=$order"
    done
    a="$out/order-$m-$ip-model" b="$out/order-$m-$ip-min_peak"
    [ -s "$a.out" ] && [ -s "$b.out" ] || continue
    if [ "$(by_op "$a.out")" = "$(by_op "$b.out")" ] && [ "$(tail -1 "$b.out")" = "two runs alike" ]; then
      echo "ok   $m in_place=$ip: the min_peak module gives the model-order module's $(out_bytes "$b.out") output bytes and its $(grep -c '^op ' "$b.out") operators' outputs"
    else
      bad "$m in_place=$ip: the min_peak module's outputs differ from the model-order module's"
    fi
    grep -q "^order" "$a.log" && bad "$m in_place=$ip: op_order model reports an order"
    if [ "$ip" = false ]; then
      grep -q "^order: min_peak, [0-9]* of [0-9]* operators moved: the tensor-level bound falls from [0-9]* to [0-9]* bytes (-$fell)" "$b.log" ||
        bad "$m: the summary does not report the bound falling by $fell bytes: $(grep '^order' "$b.log")"
    else
      grep -q "^order: min_peak, [0-9]* of [0-9]* operators moved: the in-place bound falls" "$b.log" ||
        bad "$m in_place: the summary does not report a lower in-place bound: $(grep '^order' "$b.log")"
    fi
    python3 - "$a/fx_residency.json" "$b/fx_residency.json" <<'PY' || fail=1
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
oo = b["planner"]["op_order"]
assert "op_order" not in a["planner"] and not any("model_index" in o for o in a["ops"])
assert oo["changed"] and oo["bound"] < oo["model_order_bound"], oo
idx = [o["model_index"] for o in b["ops"]]
assert sorted(idx) == list(range(len(a["ops"]))), idx
assert [o["index"] for o in b["ops"]] == list(range(len(idx)))
assert sum(1 for p, i in enumerate(idx) if p != i) == oo["moved"], (idx, oo)
# the same operators with the same tensors, in the new order
for o in b["ops"]:
    m = a["ops"][o["model_index"]]
    assert (m["operator"], m["inputs"], m["outputs"]) == (o["operator"], o["inputs"], o["outputs"]), (m, o)
# every tensor's producer runs before its readers in the order used
written = {}
for p, o in enumerate(b["ops"]):
    for t in o["outputs"]:
        written[t] = p
for p, o in enumerate(b["ops"]):
    for t in o["inputs"]:
        assert written.get(t, -1) < p, ("read before written", t, o)
print("ok   %s: %d of %d operators moved, bound %d -> %d bytes"
      % (sys.argv[2].split("/")[-2], oo["moved"], len(idx), oo["model_order_bound"], oo["bound"]))
PY
  done
done
# TFLM's own answers: the conformance corpus's multi-operator models, some
# with a PAD in front of a convolution, and its SLICE / STRIDED_SLICE cases,
# converted with memory.in_place (the PADs folded, slices over their
# inputs) must match TFLM bit for bit on the host and the Cortex-M55
conf=${MEMPLAN_CONFORMANCE:-../shared/conformance}
if [ -n "${REWRITE_FILTER:-}" ]; then
  echo "NOTICE: REWRITE_FILTER is set: the conformance cases are skipped"
elif [ -f "$conf/manifest.json" ]; then
  # the four selections run as variants of one conformance run (one build,
  # one set of emulator images), each judged on its own
  variants=
  n=0
  for f in "$conf"/multi_op_*/*/model.tflite; do
    "$MEMPLAN" plan "$f" --memory.in_place=true 2>/dev/null | grep -q "^rewrites: [0-9]* PADs\? folded" &&
      n=$((n + 1))
  done
  [ "$n" -ge 1 ] || bad "no multi-operator conformance case folds a PAD"
  # and the cases of the operators that become views or lie over their
  # inputs: SLICE / STRIDED_SLICE, SPLIT / SPLIT_V / UNPACK (views where a
  # run is contiguous), CONCATENATION / PACK (their inputs are graph
  # inputs there, so they stay copies)
  variants+="in_place ^(multi_op_|slice_|strided_slice_|split_|split_v_|unpack_|concatenation_|pack_) --memory.in_place=true"$'\n'
  # and the multi-operator cases with memory.patch auto (the stages auto
  # patches run tile by tile)
  np=0
  for f in "$conf"/multi_op_*/*/model.tflite; do
    "$MEMPLAN" plan "$f" --memory.in_place=true --memory.patch=auto 2>/dev/null | grep -q "^patch: operators" &&
      np=$((np + 1))
  done
  [ "$np" -ge 1 ] || bad "memory.patch auto patches no multi-operator conformance case"
  variants+="patch_auto ^multi_op_ --memory.in_place=true --memory.patch=auto"$'\n'
  # and the multi-operator cases that memory.op_order min_peak runs in
  # another order, with and without in_place
  declare -A moved=()
  for ip in false true; do
    moved[$ip]=""
    for f in "$conf"/multi_op_*/*/model.tflite; do
      "$MEMPLAN" plan "$f" --memory.op_order=min_peak --memory.in_place=$ip 2>/dev/null |
        grep -q "^order: min_peak, [0-9]* of [0-9]* operators moved" || continue
      k=${f#"$conf"/}; moved[$ip]="${moved[$ip]}${moved[$ip]:+|}${k%/model.tflite}"
    done
    [ -n "${moved[$ip]}" ] || { bad "no multi-operator conformance case runs in another order (in_place $ip)"; continue; }
    variants+="min_peak_in_place_$ip ^(${moved[$ip]})\$ --memory.op_order=min_peak --memory.in_place=$ip"$'\n'
  done
  CONFORMANCE_FILTER= CONFORMANCE_CONVERT_ARGS= CONFORMANCE_VARIANTS=$variants \
    bash tests/suite_conformance.sh > "$out/conformance.log" 2>&1
  conf_rc=$?
  # verdict: NAME WHAT: the variant's last line, its failures when it has no passing one
  verdict() {
    local line
    line=$(grep "^conformance $1: " "$out/conformance.log" | sed "s/^conformance $1: //")
    case $line in
      [0-9]*) echo "ok   $2: $line" ;;
      *) bad "$2: ${line:-no verdict}"; grep "^  FAIL $1: " "$out/conformance.log" | head -20 ;;
    esac
  }
  verdict in_place "$n multi-operator conformance cases fold a PAD; with memory.in_place, multi-operator, slice, split, unpack, concatenation and pack cases"
  verdict patch_auto "with memory.patch auto ($np multi-operator cases patched)"
  for ip in false true; do
    [ -n "${moved[$ip]}" ] || continue
    verdict min_peak_in_place_$ip "the multi-operator cases memory.op_order min_peak reorders (in_place $ip: ${moved[$ip]})"
  done
  # a run that did not exit 0 (or a build that failed) fails whatever the variants' lines say
  [ $conf_rc = 0 ] || { bad "the conformance run with the rewrites' variants exited $conf_rc"; tail -20 "$out/conformance.log"; }
else
  echo "NOTICE: $conf is absent: the conformance cases with memory.in_place are skipped"
fi
reports=$(ls "$out"/*/fx_residency.json)  # the operator-order modules' too
python3 tests/check_residency.py $reports > "$out/schema.log" 2>&1 ||
  { bad "residency reports do not validate"; cat "$out/schema.log"; }
[ $fail = 0 ] && echo "suite_rewrite: all passed"
exit $fail

# Makefile: set-up, runtime library, generated models, tests and benchmarks of mbgen.

LUA     ?= lua5.4
CC      ?= gcc
CFLAGS  ?= -std=c99 -O2 -Wall -Wextra -Werror
BUILD   ?= build
MBGEN   := $(LUA) generator/mbgen
LDLIBS  := -llapack -lklu -lm
# prove's options: two jobs for the two cores (builds of one model by two tests are atomic: run/build.lua).
PROVE_FLAGS ?= -j2
# The default job of `make run`: the sedan's slalom at 30 m/s from its static pose, plotted.
MODEL    ?= models/sedan.lua
RUN_ARGS ?= --static --plot build/run.svg

RUNTIME_SRC := $(sort $(wildcard runtime/*.c))
RUNTIME_HDR := $(wildcard runtime/*.h)
RUNTIME_OBJ := $(RUNTIME_SRC:runtime/%.c=$(BUILD)/runtime/%.o)
RUNTIME_LIB := $(BUILD)/libmbrt.a
CTEST_SRC   := $(sort $(wildcard tests/c/*.c))
CTEST_BIN   := $(CTEST_SRC:tests/c/%.c=$(BUILD)/tests/%.t)
MODELS      := $(sort $(wildcard models/*.lua))

# Debian packages the project needs (perl brings prove, lua-expat reads URDF, libsuitesparse-dev the sparse LU KLU).
DEPS := lua5.4 lua-expat liblapack-dev libsuitesparse-dev gcc make perl
# Peer libraries of the agreement tests and benchmarks: installed when possible; their tests skip without them.
PEER_DEPS := libmujoco-dev libadolc-dev libsimbody-dev valgrind
# Only `make bench` needs these: Eigen and Boost for Pinocchio's headers, which come from outside the repository
# (tests/bench/peers_pinocchio.lua skips without them).
BENCH_DEPS := libeigen3-dev libboost-dev

.PHONY: all deps peer-deps bench-deps run test test-asan bench generate clean
.DELETE_ON_ERROR:

all: deps $(RUNTIME_LIB)

# Installs only what is missing; as non-root prints the command and fails.
deps:
	@missing=""; \
	for pkg in $(DEPS); do \
	  dpkg-query -W -f='$${Status}' $$pkg 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$pkg"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all present ($(DEPS))"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
	  echo "deps: missing:$$missing"; echo "run: sudo apt-get update && sudo apt-get install -y$$missing"; exit 1; \
	fi; \
	echo "deps: installing$$missing"; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get update -qq && apt-get install -y -qq $$missing >/dev/null

# Like deps, but a peer that cannot be installed only makes its tests skip.
peer-deps:
	@missing=""; \
	for pkg in $(PEER_DEPS); do \
	  dpkg-query -W -f='$${Status}' $$pkg 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$pkg"; \
	done; \
	if [ -z "$$missing" ]; then echo "peer-deps: all present ($(PEER_DEPS))"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then echo "peer-deps: missing:$$missing (their tests skip)"; exit 0; fi; \
	echo "peer-deps: installing$$missing"; \
	export DEBIAN_FRONTEND=noninteractive; \
	(apt-get update -qq && apt-get install -y -qq $$missing >/dev/null) || echo "peer-deps: could not install$$missing (their tests skip)"

# Every product is written under a name of this shell ($$$$) and renamed into place, so a program that
# links the library or a test while another make (or `mbgen run`) rebuilds it never sees half a file.
ATOMIC = t=$@.$$$$.tmp; rm -f $$t; trap 'rm -f $$t' EXIT;
# The command as make would echo it, except under -s.
SAY = $(if $(findstring s,$(firstword -$(MAKEFLAGS))),:,echo)

$(BUILD)/runtime/%.o: runtime/%.c $(RUNTIME_HDR)
	@mkdir -p $(@D)
	@$(ATOMIC) $(SAY) "$(CC) $(CFLAGS) -Iruntime -c $< -o $@"; $(CC) $(CFLAGS) -Iruntime -c $< -o $$t && mv -f $$t $@

$(RUNTIME_LIB): $(RUNTIME_OBJ)
	@mkdir -p $(@D)
	@$(ATOMIC) $(SAY) "ar rcs $@ $(RUNTIME_OBJ)"; ar rcs $$t $(RUNTIME_OBJ) && mv -f $$t $@

NPROC := $(shell nproc 2>/dev/null || echo 2)
# cl_tangent.c includes generated/fourbar_grid.c (4.7 MB): at -O0 it compiles in 10 CPU-s instead of 40 at -O2, and
# its runs take 2 s instead of 1.3.
$(BUILD)/tests/cl_tangent.t: CFLAGS += -O0

# A C test may #include "generated/NAME.c" directly; rebuild when any of it changes.
$(BUILD)/tests/%.t: tests/c/%.c tests/tap.h $(RUNTIME_LIB) $(wildcard generated/*.c generated/*.h tests/c/*.h runtime/driver/*.c)
	@mkdir -p $(@D)
	@$(ATOMIC) $(SAY) "$(CC) $(CFLAGS) -I. -Iruntime -Itests -Igenerated $< -o $@ $(RUNTIME_LIB) $(LDLIBS)"; \
	  $(CC) $(CFLAGS) -I. -Iruntime -Itests -Igenerated $< -o $$t $(RUNTIME_LIB) $(LDLIBS) && mv -f $$t $@

# The main job: generate the default model, compile it with the runtime's driver, simulate, summarize.
run: deps
	$(MBGEN) run $(MODEL) $(RUN_ARGS)

# The runtime and the C tests build on every core before prove starts (one at a time they kept a core idle).
test: deps peer-deps
	@$(MAKE) --no-print-directory -j$(NPROC) $(CTEST_BIN)
	prove --exec '' $(PROVE_FLAGS) tests/*.t $(CTEST_BIN)

# The C tests again under AddressSanitizer and UBSan, in their own build folder.
test-asan: deps
	$(MAKE) --no-print-directory BUILD=build-asan \
	  CFLAGS="-std=c99 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all" \
	  asan-run

.PHONY: asan-run
asan-run: $(CTEST_BIN)
	prove --exec '' $(CTEST_BIN)

generate: deps
	@for m in $(MODELS); do echo "mbgen generate $$m"; $(MBGEN) generate $$m -o generated || exit 1; done

# Every tests/bench/*.sh in order (or BENCH_SCRIPTS); the wall and CPU (user + sys) time of each and of the whole
# run go to tests/bench/results/bench_wall.md. The scripts compile on every core and time one thing at a time.
BENCH_SCRIPTS ?= $(sort $(wildcard tests/bench/*.sh))
BENCH_WALL := tests/bench/results/bench_wall.md
# Seconds of CPU of the shell's children, from the second line of `times` written to a file.
CHILD_CPU = awk 'NR == 2 { split($$1, a, "m"); split($$2, b, "m"); printf "%d", a[1] * 60 + a[2] + b[1] * 60 + b[2] }'
bench-deps:
	@$(MAKE) --no-print-directory peer-deps PEER_DEPS="$(BENCH_DEPS)"

bench: deps peer-deps bench-deps $(RUNTIME_LIB)
	@fail=0; t0=$$(date +%s); load0=$$(cut -d' ' -f1-3 /proc/loadavg); rows=""; tf=$$(mktemp); \
	for b in $(BENCH_SCRIPTS); do \
	  echo "== $$b"; s=$$(date +%s); times > $$tf; c0=$$($(CHILD_CPU) $$tf); st=ok; \
	  bash "$$b" || { echo "FAILED: $$b"; fail=1; st=FAILED; }; \
	  times > $$tf; c1=$$($(CHILD_CPU) $$tf); \
	  rows="$$rows| $$b | $$(( $$(date +%s) - s )) | $$(( c1 - c0 )) | $$st |\n"; \
	done; \
	{ echo "# Wall time of make bench"; echo; \
	  echo "Machine: $$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $$(nproc) cores;" \
	    "load average $$load0 at the start, $$(cut -d' ' -f1-3 /proc/loadavg) at the end; $$(date -u +%Y-%m-%d)." \
	    "Builds run one per core; everything timed runs alone. CPU seconds add up both cores."; echo; \
	  echo "| script | wall s | CPU s (user + sys) | status |"; echo "|---|---|---|---|"; printf "$$rows"; \
	  times > $$tf; echo "| **total** | **$$(( $$(date +%s) - t0 ))** | **$$($(CHILD_CPU) $$tf)** | |"; } > $(BENCH_WALL); \
	rm -f $$tf; cat $(BENCH_WALL); exit $$fail

clean:
	rm -rf $(BUILD) build-asan

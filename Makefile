# A thin wrapper over CMake, for the commands in README.md.
BUILD ?= build
JOBS ?= $(shell nproc)
SAMPLE ?= samples/glm5_decode.json.gz

.PHONY: all deps deps-dev configure build demo test test-asan install gpu-bundle clean

all: build

# What building and running tix needs (not the test and fuzz tools).
deps:
	./scripts/setup.sh

# That, and what the tests, the benchmark and the fuzzers need.
deps-dev:
	./scripts/setup.sh --dev

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTIX_WERROR=ON >/dev/null

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Set up everything and open the TUI on the bundled GLM-5-like decode trace.
demo: build
	./$(BUILD)/cli/tix $(SAMPLE)

test: deps-dev build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The same suite under AddressSanitizer and UndefinedBehaviorSanitizer.
test-asan: deps-dev
	BUILD_ASAN=$(BUILD)-asan JOBS=$(JOBS) ./scripts/ci-asan.sh

# bin/tix, the man page, the completions, libtixcap.so (with CUPTI) under PREFIX.
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# The folder tests/gpu/run_gpu_checks.sh runs from on a GPU host (docs/CAPTURE.md,
# "On a GPU"): this build's tix, libtixcap.so and libcupti, and the test program.
gpu-bundle: build
	./scripts/gpu_bundle.sh --from $(BUILD) $(BUILD)-gpu-bundle

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-gpu-bundle

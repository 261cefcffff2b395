# The two commands (see README):
#   make run    install what is missing, build Release, start build/goblin-core on 127.0.0.1:6379
#   make test   install what is missing, build, run every test (CTest)
#
# Debian packages the build and the tests need. `make deps` installs only the
# missing ones (as root, or through sudo).
DEPS := build-essential cmake pkg-config libhiredis-dev libsodium-dev libxxhash-dev \
        libnuma-dev libjemalloc-dev liblzf-dev libsystemd-dev redis-server redis-tools redis-sentinel gnuplot-nox python3 python3-redis python3-rq strace \
        clang-format nutcracker iproute2 libfabric-dev libfabric-bin libssl-dev openssl \
        clang libclang-rt-14-dev \
        liblua5.1-0-dev lua-cjson-dev lua-bitop-dev tcl curl
# Node.js and npm for tests/integration/test_node_clients.sh (Debian 12:
# Node 18), installed only when no npm is on PATH: a NodeSource nodejs
# carries its own npm and conflicts with Debian's npm package.
NODE_DEPS := nodejs npm
BUILD ?= build
JOBS ?= $(shell nproc)
ARGS ?=

.PHONY: all deps configure build run test clean format sbe command-meta install

all: build

deps:
	@missing=""; \
	for p in $(DEPS); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	command -v npm >/dev/null 2>&1 || missing="$$missing $(NODE_DEPS)"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: configure
	cmake --build $(BUILD) -j$(JOBS)

run: configure
	cmake --build $(BUILD) -j$(JOBS) --target goblin-core
	exec ./$(BUILD)/goblin-core $(ARGS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS) --timeout 900

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

# Regenerates the SBE codec after a schema change (docs/sbe.md); the tests
# fail while the checked-in header differs from this output.
sbe:
	python3 tools/sbe_gen.py schema/goblin_sbe.xml > include/goblin/sbe_codec.h
	clang-format -i include/goblin/sbe_codec.h

# Regenerates the Redis 7.0 command metadata (COMMAND INFO/DOCS, key specs)
# after adding a command (src/commands/command_meta.h); needs a build and
# redis-server 7.0.15.
command-meta: build
	python3 tools/command_meta_gen.py $(BUILD)/goblin-core /usr/bin/redis-server > src/commands/generated/command_meta_table.c
	clang-format -i src/commands/generated/command_meta_table.c

# Installs the binary, the systemd unit and the default config
# (docs/configuration.md, "Running as a service"); an existing config is kept.
# Without DESTDIR (a real install) it also creates the goblin-core system user
# the unit runs as.
PREFIX ?= /usr/local
SYSTEMD_UNIT_DIR ?= /lib/systemd/system
install: build
	install -D -m 0755 $(BUILD)/goblin-core $(DESTDIR)$(PREFIX)/bin/goblin-core
	install -d $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	sed -e 's#/usr/local/bin/goblin-core#$(PREFIX)/bin/goblin-core#' \
	    -e 's#/usr/local/share/doc#$(PREFIX)/share/doc#' \
	    deploy/goblin-core.service > $(DESTDIR)$(SYSTEMD_UNIT_DIR)/goblin-core.service
	chmod 0644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/goblin-core.service
	[ -e $(DESTDIR)/etc/goblin-core/goblin-core.conf ] || \
	  install -D -m 0640 deploy/goblin-core.conf $(DESTDIR)/etc/goblin-core/goblin-core.conf
	install -D -m 0644 docs/configuration.md $(DESTDIR)$(PREFIX)/share/doc/goblin-core/configuration.md
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" -eq 0 ] && ! getent passwd goblin-core >/dev/null; then \
	  useradd --system --home-dir /var/lib/goblin-core --shell /usr/sbin/nologin goblin-core; \
	fi
	@echo "installed; start with: systemctl daemon-reload && systemctl enable --now goblin-core"

clean:
	rm -rf $(BUILD)

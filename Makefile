# podsrc: `make demo` runs the main job, `make test` runs every test.

SHELL := /bin/bash
.DEFAULT_GOAL := build

# Go modules of the project: the root (the plugin and every package), the
# static pod decoding every kubelet minor shares (internalpod), and one module
# per kubelet minor (cmd/podsrc-agent/kubelet1NN, the newest last) holding
# that minor's agent main and static pod decoder, built against its own
# k8s.io/kubernetes, whose replace directives must stay out of the root module.
AGENT_MODULES := cmd/podsrc-agent/kubelet133 cmd/podsrc-agent/kubelet134 cmd/podsrc-agent/kubelet135 cmd/podsrc-agent/kubelet136 cmd/podsrc-agent/kubelet137
NEWEST_AGENT_MODULE := $(lastword $(AGENT_MODULES))
MODULES := . pkg/staticpod/internalpod $(AGENT_MODULES) test/bench/merge
# The tool modules (the test cluster's, and promtool, which pkg/agent's
# metrics test builds offline): no tests, but kept tidy (their go.sum keys the
# cluster's build cache, hack/lib/build.sh; tidy also downloads what the
# offline promtool build needs), and the k8s one's own programs vetted.
TOOL_MODULES := hack/tools/k8s hack/tools/etcd hack/tools/kubelet134 hack/tools/promtool

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
LDFLAGS := -s -w -X github.com/podsrc/podsrc/internal/version.Version=$(VERSION)
GOFLAGS_BUILD := -trimpath -ldflags "$(LDFLAGS)"
# grpcnotrace leaves gRPC's golang.org/x/net/trace, and the HTML templates
# it brings, out of the agent: a fifth smaller binary and about 5 MiB less
# resident memory. hack/image.sh and the Dockerfile build with it too.
AGENT_TAGS := grpcnotrace
BIN := $(CURDIR)/bin
# The whole suite brings up a real cluster; give it room.
TEST_TIMEOUT ?= 60m

.PHONY: build
build: ## Build kubectl-podsrc and podsrc-agent (for the newest kubelet minor) into bin/.
	go build $(GOFLAGS_BUILD) -o $(BIN)/kubectl-podsrc ./cmd/kubectl-podsrc
	cd $(NEWEST_AGENT_MODULE) && go build $(GOFLAGS_BUILD) -tags $(AGENT_TAGS) -o $(BIN)/podsrc-agent .

.PHONY: build-agents
build-agents: build ## Also the agents for the older kubelet minors: bin/podsrc-agent-kubelet1.N.
	@for m in $(filter-out $(NEWEST_AGENT_MODULE),$(AGENT_MODULES)); do \
	  minor=$${m##*/kubelet1}; \
	  (cd $$m && go build $(GOFLAGS_BUILD) -tags $(AGENT_TAGS) -o $(BIN)/podsrc-agent-kubelet1.$$minor .) || exit 1; \
	done

.PHONY: deps
deps: ## The Debian packages the tests need (hack/install-deps.sh; root).
	./hack/install-deps.sh

# make test's stages are run by hack/suite: the cluster's build, lint, each
# module's tests (compiled in parallel, then run one binary at a time: several
# share the one test cluster and some restart parts of it), the cluster torn
# down and checked. Every stage runs whatever became of the ones before; each
# has a time budget (docs/development.md; warm or cold, by the caches that
# stage needs), is listed
# at the end when past it, and fails for time only as a hang (or, with
# PODSRC_STRICT_BUDGETS=1, past its budget). One
# recipe line and no $(MAKE), so that `make -n test` runs nothing (make runs
# a line naming $(MAKE) even under -n, and this one brings the cluster down).
SUITE := go run ./hack/suite
# TEST_BUDGET_SCALE multiplies every stage's budget, for a machine that is
# shared or slower than the 2 idle cores the budgets are set for.
TEST_BUDGET_SCALE ?= 1

.PHONY: test
test: deps ## Every test: unit, conformance, integration and end to end, on a real cluster.
	$(SUITE) test -modules "$(MODULES)" -timeout $(TEST_TIMEOUT) -budget-scale $(TEST_BUDGET_SCALE)

.PHONY: go-test
go-test: ## make test's stages without the cluster's down and check-clean (the cluster stays up).
	$(SUITE) test -modules "$(MODULES)" -timeout $(TEST_TIMEOUT) -budget-scale $(TEST_BUDGET_SCALE) -keep-cluster

# FLAKE_RUNS runs of the unit packages of every module (cluster tests
# skipped, PODSRC_TEST_CLUSTER=off) with -race, -p above the core count and
# a CPU burner per core; then as many of the cluster packages (those with a
# *_cluster_test.go file, test/e2e aside), one binary at a time.
FLAKE_RUNS ?= 20
.PHONY: flake
flake: ## The suite's stability: unit and cluster packages FLAKE_RUNS times under load.
	$(SUITE) flake -modules "$(MODULES)" -runs $(FLAKE_RUNS)
	$(SUITE) flake -cluster -runs $(FLAKE_RUNS)

.PHONY: unit
unit: ## The tests that need no cluster (the cluster tests skip only when not root).
	go test -race -count=1 ./pkg/...

.PHONY: lint
lint: ## gofmt, go vet, tidy go.mod files, no replace directive in the root go.mod.
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	@for m in $(MODULES) hack/tools/k8s; do (cd $$m && go vet ./...) || exit 1; done
	@for m in $(MODULES) $(TOOL_MODULES); do (cd $$m && go mod tidy -diff) || { echo "go mod tidy would change $$m/go.mod or go.sum"; exit 1; }; done
	@if grep -qE '^\s*replace\b' go.mod; then echo "the root go.mod must have no replace directive (go install of kubectl-podsrc would break)"; exit 1; fi

# The side-by-side and real-runtime benchmarks print ratios against the
# kubelet and the bare CRI round trip: hack/bench-merge.sh,
# hack/bench-pleg.sh (root, real containerd) and hack/bench-agent.sh;
# hack/bench-latency.sh (root, the test cluster) prints event latencies.
.PHONY: bench
bench: ## Go benchmarks of the merge, the PLEG and the event ring.
	go test -run '^$$' -bench . -benchmem ./pkg/merge/ ./pkg/pleg/ ./pkg/agent/

# RELEASE_VERSION is the version make dist builds and writes into krew/podsrc.yaml.
RELEASE_VERSION ?= v0.1.0

.PHONY: dist
dist: ## kubectl-podsrc archives for every platform, the agent images, one per kubelet minor (OCI layout, amd64+arm64), and krew/podsrc.yaml.
	go run ./hack/dist -version $(RELEASE_VERSION) -out dist -manifest krew/podsrc.yaml

.PHONY: demo
demo: build ## The main job: a real local two-node cluster with podsrc on it.
	./hack/demo.sh

# docs/commands.md and docs/columns.md are committed (go test ./docs/ fails
# when they are stale); the man pages are build output, like the binaries.
.PHONY: docs
docs: ## docs/commands.md from the command trees, docs/columns.md from the column lists, and man pages into bin/man.
	go run ./hack/gendocs -markdown docs/commands.md -columns docs/columns.md -man $(BIN)/man

.PHONY: clean
clean: ## Remove bin/ and dist/.
	rm -rf $(BIN) dist

# Every target has a ## line; docs/development.md shows this output, and
# go test ./docs/ checks that it is current.
.PHONY: help
help: ## Every target, one line each.
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{ printf "%-13s %s\n", $$1, $$2 }'

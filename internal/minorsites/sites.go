package minorsites

import (
	"regexp"
	"strings"
)

// AgentModuleDir is the directory of the agent modules, one per minor:
// kubelet1NN holds minor NN's agent main, decoder and admit handlers.
const AgentModuleDir = "cmd/podsrc-agent"

// agentModule matches an agent module's directory name; its group is the
// minor.
var agentModule = regexp.MustCompile(`^kubelet1(\d\d)$`)

// Sites are the files that list the kubelet minors podsrc reproduces, but
// for the agent modules themselves (AgentModuleDir). Every other place
// derives its minors from pkg/kubeletminor (deploy, the plugin's skew
// warnings, make dist's images and krew description) or from the modules'
// directories (hack/image.sh, hack/bench-agent.sh). A place that must name minors goes here, and its
// minors are then checked by go test ./internal/minorsites.
var Sites = []Site{
	{
		Name:  "Makefile (AGENT_MODULES)",
		Path:  "Makefile",
		Block: regexp.MustCompile(`(?m)^AGENT_MODULES :=.*$`),
		Item:  regexp.MustCompile(`cmd/podsrc-agent/kubelet1(\d\d)\b`),
		Sep:   " ",
	},
	{
		Name:  "pkg/kubeletminor (the minor's constant)",
		Path:  "pkg/kubeletminor/minor.go",
		Block: regexp.MustCompile(`(?s)\nconst \(\n.*?\n\)`),
		Item:  regexp.MustCompile(`(?m)^\tV1(\d\d) Minor = \d+$`),
		Copy:  constLine,
		Sep:   "\n",
	},
	{
		Name:  "pkg/kubeletminor (Supported)",
		Path:  "pkg/kubeletminor/minor.go",
		Block: regexp.MustCompile(`var Supported = \[\]Minor\{[^}]*\}`),
		Item:  regexp.MustCompile(`\bV1(\d\d)\b`),
		Sep:   ", ",
	},
	{
		Name:  "pkg/kubeletsemantics (byMinor)",
		Path:  "pkg/kubeletsemantics/semantics.go",
		Block: regexp.MustCompile(`(?s)var byMinor = .*?\n\}`),
		Item:  regexp.MustCompile(`(?m)^\tkubeletminor\.V1(\d\d): .*$`),
		Sep:   "\n",
	},
	{
		Name:   "hack/suite (moduleBudgets)",
		Path:   "hack/suite/test.go",
		Block:  regexp.MustCompile(`(?s)var moduleBudgets = .*?\n\}`),
		Item:   regexp.MustCompile(`(?m)^\t"cmd/podsrc-agent/kubelet1(\d\d)": .*$`),
		Sep:    "\n",
		Demote: demoteBudget,
	},
	{
		Name: "docs/kubelet-differences.md (the table of agent modules)",
		Path: "docs/kubelet-differences.md",
		Item: regexp.MustCompile("(?m)^\\| v1\\.(\\d\\d) \\| `cmd/podsrc-agent/kubelet1\\d\\d`.*$"),
		Sep:  "\n",
	},
	{
		Name:  "docs/conformance.md (the loop over the agent modules)",
		Path:  "docs/conformance.md",
		Block: regexp.MustCompile(`for m in [0-9 ]+; do`),
		Item:  regexp.MustCompile(`\b1(\d\d)\b`),
		Copy:  func(_ string, r rename) string { return "1" + r.digits() },
		Sep:   " ",
	},
	{
		Name:  ".github/workflows/release.yaml (the images pushed)",
		Path:  ".github/workflows/release.yaml",
		Block: regexp.MustCompile(`for minor in [0-9 ]+; do`),
		Item:  regexp.MustCompile(`\b(\d\d)\b`),
		Copy:  func(_ string, r rename) string { return r.digits() },
		Sep:   " ",
	},
	{
		Name:       "Dockerfile (the agent image of the newest minor)",
		Path:       "Dockerfile",
		Item:       regexp.MustCompile(`\b(?:kubelet1\.?|v1\.)(\d\d)\b`),
		NewestOnly: true,
	},
	{
		Name:       "krew/podsrc.yaml (the range of minors, from hack/dist)",
		Path:       "krew/podsrc.yaml",
		Item:       regexp.MustCompile(`reproduces kubelets v1\.\d\d to v1\.(\d\d);`),
		NewestOnly: true,
	},
	{
		Name:       "krew/.krew.yaml (the range of minors, from hack/dist)",
		Path:       "krew/.krew.yaml",
		Item:       regexp.MustCompile(`reproduces kubelets v1\.\d\d to v1\.(\d\d);`),
		NewestOnly: true,
	},
	{
		Name:       "README.md (the range of minors)",
		Path:       "README.md",
		Item:       regexp.MustCompile(`kubelet minor \(v1\.\d\d to\s+v1\.(\d\d)\)`),
		NewestOnly: true,
	},
	{
		Name:       "docs/deploy.md (the range of minors)",
		Path:       "docs/deploy.md",
		Item:       regexp.MustCompile(`outside v1\.\d\d–v1\.(\d\d)`),
		NewestOnly: true,
	},
	{
		Name:       "docs/releasing.md (the range of minors)",
		Path:       "docs/releasing.md",
		Item:       regexp.MustCompile(`reproduces \(1\.\d\d to 1\.(\d\d)\)`),
		NewestOnly: true,
	},
	{
		Name:       "docs/kubelet-differences.md (the range of minors)",
		Path:       "docs/kubelet-differences.md",
		Item:       regexp.MustCompile(`reproduces? kubelets v1\.\d\d to\s+v1\.(\d\d)\b`),
		NewestOnly: true,
	},
}

// demoteBudget gives the former newest module the budget of every other
// minor's: the newest module also holds the agent binary's tests, which
// move to the new one.
func demoteBudget(item string) string {
	key, _, _ := strings.Cut(item, ": ")
	return key + ": kubeletModule,"
}

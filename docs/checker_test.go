package docs

import (
	"slices"
	"testing"
)

// TestCommandChecker checks the checker the doc tests rely on: it finds
// the invocations in a line of code and refuses commands and flags the
// trees do not have.
func TestCommandChecker(t *testing.T) {
	plugin, agentCmd := commandTrees()
	tests := []struct {
		code     string
		lines    int
		problems []string
	}{
		{code: "kubectl podsrc sources node-1 -o wide", lines: 1},
		{code: "$ kubectl podsrc watch node-1 --pod='kube-system/etcd-*' --op='!RECONCILE' | head", lines: 1},
		{code: "kubectl podsrc events node-1 --since=10m -o json > report.jsonl", lines: 1},
		{code: "source <(kubectl podsrc completion bash)", lines: 1},
		{code: "kubectl podsrc pods node-1 --no-such-flag", lines: 1, problems: []string{"kubectl podsrc pods has no flag --no-such-flag"}},
		{code: "kubectl podsrc sources node-1 -Z", lines: 1, problems: []string{"kubectl podsrc sources has no flag -Z"}},
		{code: "kubectl podsrc why node-1 --snapshot", lines: 1, problems: []string{"kubectl podsrc why has no flag --snapshot"}},
		{code: "kubectl podsrc sources node-1   # -o nothing after a comment", lines: 1},
		{code: "watch --snapshot", lines: 1},
		{code: "watch --no-such-flag", lines: 1, problems: []string{"kubectl podsrc watch has no flag --no-such-flag"}},
		{code: "watch", lines: 0},
		{code: "bin/podsrc-agent --node-name=dev --api-source=false", lines: 1},
		{code: "podsrc-agent --no-such-flag", lines: 1, problems: []string{"podsrc-agent has no flag --no-such-flag"}},
		{code: "go test -race ./pkg/...", lines: 0},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			lines := commandLines(tt.code, plugin)
			if len(lines) != tt.lines {
				t.Fatalf("found %d command lines, want %d", len(lines), tt.lines)
			}
			var problems []string
			for _, l := range lines {
				root := plugin
				if l.agent {
					root = agentCmd
				}
				problems = append(problems, checkCommandLine(root, l.args)...)
			}
			if !slices.Equal(problems, tt.problems) {
				t.Errorf("problems %q, want %q", problems, tt.problems)
			}
		})
	}
}

// TestParsePage checks what the doc tests read of a page: code in fences
// (joined over backslashes) and spans, and the anchors of headings outside
// fences.
func TestParsePage(t *testing.T) {
	p := parsePage("x.md", "# A page's title\n\nText with `kubectl podsrc\nsources` in it.\n\n```sh\n# not a heading\nmake \\\n  test\n```\n\n## Why: `kubectl podsrc why`\n")
	wantCode := []string{"# not a heading", "make   test", "kubectl podsrc sources", "kubectl podsrc why"}
	if !slices.Equal(p.code, wantCode) {
		t.Errorf("code %q, want %q", p.code, wantCode)
	}
	for _, a := range []string{"a-pages-title", "why-kubectl-podsrc-why"} {
		if !p.anchors[a] {
			t.Errorf("no anchor %q in %v", a, p.anchors)
		}
	}
	if p.anchors["not-a-heading"] {
		t.Error("a comment in a code block became a heading")
	}
}

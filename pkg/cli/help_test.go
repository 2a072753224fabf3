package cli

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// TestHelpPages: each help page has its command's own flags, the global
// ones are in options, klog keeps -v and --vmodule only, and the long
// descriptions have no paragraph that starts with a space.
func TestHelpPages(t *testing.T) {
	tests := []struct {
		args    []string
		want    []string
		notWant []string
	}{
		{[]string{"--help"}, []string{"Inspect nodes:", `Use "kubectl podsrc <command> --help"`, `Use "kubectl podsrc options"`}, []string{"--kubeconfig", "--log_dir", "--add_dir_header"}},
		{[]string{"pods", "--help"}, []string{"(file, http, api; <runtime> for pods", "--source=''", "kubectl podsrc pods NODE... [options]"}, []string{"--kubeconfig", "--request-timeout", "--vmodule", "[flags]"}},
		{[]string{"completion", "--help"}, []string{"For kubectl podsrc <TAB> to complete", "powershell"}, nil},
		{[]string{"why", "--help"}, []string{"Exit status: 0 when every stage is ok"}, nil},
		{[]string{"options"}, []string{"--kubeconfig=''", "--request-timeout='30s'", "--node-timeout=10s", "-v, --v=0", "--vmodule=", "--context=''"}, []string{"--log_dir", "--logtostderr", "--source"}},
		{[]string{"options", "--help"}, []string{"--node-timeout=10s"}, nil},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, err := run(t, context.Background(), tc.args...)
			if err != nil {
				t.Fatalf("error %v, stderr %s", err, errOut)
			}
			checkOutput(t, out, tc.want, tc.notWant)
			if regexp.MustCompile("\n\n [^ ]").MatchString(out) {
				t.Errorf("a paragraph starts with a space:\n%s", out)
			}
		})
	}
}

func TestFlagErrorsOnOneLine(t *testing.T) {
	_, _, err := run(t, context.Background(), "pods", "--bogus")
	if err == nil || err.Error() != "unknown flag: --bogus (see 'kubectl podsrc pods --help')" {
		t.Fatalf("error %v, want the unknown flag and where to look, on one line", err)
	}
}

func TestLongDesc(t *testing.T) {
	got := longDesc(`
		First paragraph
		goes on.

		  indented stays
		- an item
		- another
		  continued

		Last.`)
	want := "First paragraph goes on.\n\n  indented stays\n- an item\n- another\n  continued\n\nLast."
	if got != want {
		t.Errorf("longDesc = %q, want %q", got, want)
	}
}

// TestOwnTextNotEscaped: what the plugin and cobra say themselves keeps its
// line feeds and tabs, while an agent's text in an error is still escaped,
// line feeds included.
func TestOwnTextNotEscaped(t *testing.T) {
	hostile := fakeagent.New("node-1")
	hostile.Fault = fakeagent.FaultStatus
	u := serveUntilCleanup(t, hostile)
	tests := []struct {
		name    string
		args    []string
		want    string
		notWant string
	}{
		{"suggestion", []string{"sourcs"}, "Did you mean this?\n\tsources\n", `\n`},
		{"agent text", []string{"pods", "--agent-url", u}, `answered 500: \x1b]0;pwned\a`, "forged line\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, done := startExit(context.Background(), tc.args...)
			if code := <-done; code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			checkOutput(t, stderr.String(), []string{tc.want}, []string{tc.notWant})
			if bad := fakeagent.RawControls(stderr.String(), true); len(bad) > 0 {
				t.Errorf("stderr has raw control characters %v:\n%s", bad, stderr)
			}
		})
	}
}

package why

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/internal/shell"
)

// hostileNames maps the fixtures' names to names an agent or the API
// server could give, each running a command when a shell reads it
// unquoted: mark is the file that command would create. Node names,
// namespaces, pods, containers, images and the sources' targets start with
// "-", to be read as options when left bare or put where no option takes
// them as its value.
func hostileNames(mark string) *strings.Replacer {
	run := "$(touch${IFS}" + mark + ")"
	return strings.NewReplacer(
		testNode, "-"+run,
		"kube-system", "ns;`touch${IFS}"+mark+"`",
		"default", "--server=https://127.0.0.1:18445;`touch${IFS}"+mark+"`",
		"registry.example", "-registry'"+run+"'",
		"http://config.example/pods", "-K"+run,
		testDir, "/etc/kube "+run+"/manifests",
		"https://10.0.0.1:6443", "--kubeconfig=/dev/null;"+run,
		// The pods and their containers.
		"etcd", "--insecure-skip-tls-verify"+run,
		"web", "--server=https://127.0.0.1:18445"+run,
		"hog", "-n"+run,
		"two", "-o=yaml"+run,
		"remote", "--as=admin"+run,
		"migrate", "-c"+run,
		"proxy", "--previous"+run,
		// The runtime's IDs, which suggestions shorten.
		"sandbox0123456789abcdef", "--image-endpoint=unix;id|"+run,
		"0123456789abcdef", "'--timeout=1;id|'",
	)
}

// rename replaces every string reachable from v (through structs,
// pointers, slices and maps, keys too) with r's replacement; the same
// replacement everywhere keeps the names' relations (a pod's name is its
// manifest's name and its node's).
func rename(v reflect.Value, r *strings.Replacer) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(r.Replace(v.String()))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				rename(f, r)
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			rename(v.Elem(), r)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			rename(v.Index(i), r)
		}
	case reflect.Map:
		if v.IsNil() || !v.CanSet() {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			k.Set(it.Key())
			e.Set(it.Value())
			rename(k, r)
			rename(e, r)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	}
}

// suggestedCommand finds the commands in a suggestion: from a program's
// name to the prose after it.
var (
	commandStart = regexp.MustCompile(`(?:^|[ (:])((?:kubectl|crictl|curl|ls) )`)
	commandEnds  = []string{" on node ", " (", "; then", ", then", " again in", " from node ", " lists", " says", " shows", " finds it"}
)

// commandsIn returns the commands of a suggestion.
func commandsIn(s string) []string {
	var out []string
	for _, loc := range commandStart.FindAllStringSubmatchIndex(s, -1) {
		cmd := s[loc[2]:]
		for _, end := range commandEnds {
			if i := strings.Index(cmd, end); i >= 0 {
				cmd = cmd[:i]
			}
		}
		out = append(out, strings.TrimSuffix(cmd, ")"))
	}
	return out
}

// podsrcFlags are the options the suggestions give themselves, true for
// those that take a value (the next word, whatever it starts with); any
// other word starting with "-" must be an operand behind "--".
var podsrcFlags = map[string]bool{
	"-n": true, "-c": true, "-o": true, "--pod": true, "--name": true, "--namespace": true,
	"--kind": true, "--since": true, "--source": true, "--field-selector": true,
	"-f": true,
	"-A": false, "-a": false, "-w": false, "-l": false, "--previous": false, "--force": false, "--show-labels": false,
}

// TestSuggestionsAreData runs every scenario of TestAnalyze (one per
// admission reason among them) with the node, the namespaces, the pods,
// their containers and images, the runtime's IDs, the sources' targets and
// the manifest directory named to run a command: each command of each suggestion passes bash -n,
// its words as bash reads them are the names as given (no command ran),
// and every word starting with "-" is podsrc's own option or an operand
// behind "--". The node's name in prose is quoted too.
func TestSuggestionsAreData(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	mark := filepath.Join(dir, "ran")
	names := hostileNames(mark)
	hostileNode := names.Replace(testNode)
	checked := 0
	// covered are the hostile names some command took as a word.
	covered := map[string]bool{}
	for _, tc := range analyzeCases() {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.facts()
			rename(reflect.ValueOf(&f).Elem(), names)
			r := Analyze(f)
			if r.Suggestion == "" {
				return
			}
			if strings.Contains(r.Suggestion, "on node ") && !strings.Contains(r.Suggestion, "on node "+shell.Quote(hostileNode)) {
				t.Errorf("the node is not quoted in %q", r.Suggestion)
			}
			for _, cmd := range commandsIn(r.Suggestion) {
				checked++
				if out, err := exec.Command(bash, "-n", "-c", cmd).CombinedOutput(); err != nil {
					t.Errorf("bash -n %q: %v %s", cmd, err, out)
					continue
				}
				c := exec.Command(bash, "--norc", "-c", `printf '%s\0' `+cmd)
				c.Dir = dir
				out, err := c.Output()
				if err != nil {
					t.Errorf("reading the words of %q: %v", cmd, err)
					continue
				}
				if _, err := os.Stat(mark); err == nil {
					t.Fatalf("pasting %q ran a command", cmd)
				}
				words := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
				for _, w := range words {
					covered[w] = true
				}
				operand, value := false, false
				for i, w := range words[1:] {
					if strings.Contains(w, "touch") && !strings.Contains(w, "touch${IFS}"+mark) {
						t.Errorf("word %d of %q is %q: a name was not kept as it is", i+1, cmd, w)
					}
					if value || operand || !strings.HasPrefix(w, "-") {
						// An option's value is the next word whole,
						// "--" too: a name after it is read as an option.
						value = false
						continue
					}
					if w == "--" {
						operand = true
						continue
					}
					takes, ours := podsrcFlags[w]
					if !ours {
						t.Errorf("word %d of %q is %q: an option podsrc does not give", i+1, cmd, w)
					}
					value = takes
				}
			}
		})
	}
	if checked < 20 {
		t.Fatalf("only %d commands checked", checked)
	}
	// Each kind of name reaches a command as one word: the node, a
	// namespace, an API pod, a manifest, a container, an image, the
	// static pod URL and a sandbox.
	for _, want := range []string{testNode, "default", "web", "hog", testDir + "/gone.yaml", "migrate", "registry.example/migrate:1", "http://config.example/pods"} {
		if w := names.Replace(want); !covered[w] {
			t.Errorf("no command took %q (%q) as a word", w, want)
		}
	}
	if !covered[short(names.Replace("sandbox0123456789abcdef"))] {
		t.Errorf("no command took the sandbox's ID as a word")
	}
}

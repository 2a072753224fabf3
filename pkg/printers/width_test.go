package printers

import (
	"bytes"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/internal/golden"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

func TestDisplayWidth(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"ascii", "web-1", 5},
		{"empty", "", 0},
		{"latin with accents, two bytes each", "café-ñ", 6},
		{"a combining accent", "cafe\u0301", 4},
		{"CJK, three bytes and two columns each", "日本語", 6},
		{"fullwidth letters", "ＡＢ", 4},
		{"halfwidth katakana", "ｱｲ", 2},
		{"an emoji", "🚀", 2},
		{"a variation selector", "a\uFE0E", 1},
		{"a zero-width joiner", "a\u200Db", 2},
		{"mixed", "ns/ポッド-1", 11},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := displayWidth(tc.in); got != tc.want {
				t.Fatalf("displayWidth(%q) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

// TestGoldenWatchWideCharacters: the live table's columns stay aligned
// when names hold characters of more than one byte, or of two columns.
func TestGoldenWatchWideCharacters(t *testing.T) {
	at := func(d time.Duration) metav1.MicroTime { return metav1.NewMicroTime(now.Add(d)) }
	pleg := func(seq uint64, ns, name, container string) *v1alpha1.StreamMessage {
		return &v1alpha1.StreamMessage{Type: v1alpha1.MessageEvent, Event: &v1alpha1.Event{Seq: seq, Time: at(time.Duration(seq) * time.Second),
			Kind: v1alpha1.EventKindPLEG, Type: "ContainerStarted", PodUID: "u", Namespace: ns, PodName: name, ContainerName: container, Data: "0123456789abcdef"}}
	}
	for _, node := range []string{"node-1", "nœud-é"} {
		t.Run(node, func(t *testing.T) {
			var out bytes.Buffer
			tbl := &WatchTable{Out: &out, Display: WatchDisplay{Times: TimeUTC}}
			for _, m := range []*v1alpha1.StreamMessage{
				pleg(1, "default", "web-1", "app"),
				pleg(2, "défaut", "café-ñ", "contêiner"),
				pleg(3, "default", "ウェブ-1", "アプリ"),
				pleg(4, "default", "🚀-rocket", "cafe\u0301"),
				pleg(5, "default", "web-2", "app"),
			} {
				if err := tbl.PrintMessage(node, m); err != nil {
					t.Fatal(err)
				}
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			// Every row's CONTAINER cell starts in the header's column.
			col := displayWidth(lines[0][:strings.Index(lines[0], "CONTAINER")])
			for _, l := range lines[1:] {
				fields := strings.Fields(l)
				container := fields[6]
				if at := displayWidth(l[:strings.Index(l, "   "+container+"   ")+3]); at != col {
					t.Errorf("CONTAINER of %q starts at column %d, the header's at %d", l, at, col)
				}
			}
			golden.Check(t, "watch-wide-characters-"+strings.ReplaceAll(node, "é", "e")+".txt", out.Bytes())
		})
	}
}

package v1alpha1

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseEventQuery(t *testing.T) {
	tests := []struct {
		name    string
		query   string
		want    EventQuery
		wantErr string
	}{
		{name: "empty", query: ""},
		{name: "since a sequence number", query: "since=42", want: EventQuery{Since: SeqMark(42)}},
		{name: "since a duration", query: "since=5m", want: EventQuery{Since: AgeMark(5 * time.Minute)}},
		{name: "until now, tail", query: "until=now&tail=10", want: EventQuery{Until: AgeMark(0), Tail: 10}},
		{name: "everything", query: "since=1&epoch=abc&until=9&snapshot=true&kind=pleg&op=ADD&op=!UPDATE&type=ContainerDied&source=file&namespace=kube-system&pod=kube-system/etcd-*&container=!istio-*&labelSelector=app%3Dweb",
			want: EventQuery{Since: SeqMark(1), Epoch: "abc", Until: SeqMark(9), Snapshot: true, Kinds: []string{"pleg"}, Ops: []string{"ADD", "!UPDATE"},
				Types: []string{"ContainerDied"}, Sources: []string{"file"}, Namespaces: []string{"kube-system"}, Pods: []string{"kube-system/etcd-*"},
				Containers: []string{"!istio-*"}, Selector: "app=web"}},
		{name: "handlers in any case", query: "handler=handlepodsyncs&handler=!IGNORED",
			want: EventQuery{Handlers: []string{"handlepodsyncs", "!IGNORED"}}},
		{name: "unknown handler", query: "handler=HandlePodSync", wantErr: `handler "HandlePodSync": want one of HandlePodAdditions, HandlePodUpdates`},
		{name: "negative duration", query: "since=-5m", wantErr: `since "-5m": want an event sequence number, a duration such as 5m, or now`},
		{name: "garbage since", query: "since=soon", wantErr: `since "soon": want`},
		{name: "garbage until", query: "until=later", wantErr: `until "later": want`},
		{name: "negative tail", query: "tail=-1", wantErr: `tail "-1": want a number of events`},
		{name: "unknown kind", query: "kind=all", wantErr: `kind "all": want one of config, pleg`},
		{name: "unknown op", query: "op=add", wantErr: `op "add": want one of ADD, UPDATE`},
		{name: "unknown type", query: "type=Died", wantErr: `type "Died": want one of ContainerStarted`},
		{name: "unknown source", query: "source=etcd", wantErr: `source "etcd": want one of file, http, api`},
		{name: "bad namespace", query: "namespace=UPPER", wantErr: `namespace "UPPER": a lowercase RFC 1123 label`},
		{name: "bad pod glob", query: "pod=web-[", wantErr: `pod "web-[": want a glob`},
		{name: "empty container glob", query: "container=!", wantErr: `container "!": want a glob`},
		{name: "bad selector", query: "labelSelector=app%3D%3Dweb%3D", wantErr: `labelSelector "app==web="`},
		{name: "bad snapshot", query: "snapshot=2", wantErr: `snapshot "2": want true or false`},
		{name: "origins", query: "origin=%2Fetc%2Fkubernetes%2Fmanifests%2Fweb.yaml&origin=%21http%3A%2F%2Fconfig.example%2Fpods%3Ftoken%3Dxxxxx",
			want: EventQuery{Origins: []string{"/etc/kubernetes/manifests/web.yaml", "!http://config.example/pods?token=xxxxx"}}},
		{name: "empty origin", query: "origin=!", wantErr: `origin "!": want a static pod manifest's path`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseEventQuery(v)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.selector = nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			// Encode gives back what was parsed.
			again, err := ParseEventQuery(tt.want.Encode())
			if err != nil {
				t.Fatal(err)
			}
			again.selector = nil
			if !reflect.DeepEqual(again, tt.want) {
				t.Fatalf("parsing Encode's %q gave %+v, want %+v", tt.want.Encode().Encode(), again, tt.want)
			}
		})
	}
}

// FuzzParseEventQuery feeds arbitrary query strings to the stream's parser
// and filter: they may be refused, never crash, and what a namespace filter
// keeps is of its namespace.
func FuzzParseEventQuery(f *testing.F) {
	for _, s := range []string{"", "since=1", "since=5m&snapshot=true", "kind=pleg&namespace=a", "source=file", "epoch=x&since=18446744073709551615", "since=%zz", "pod=a/*&container=!x&labelSelector=a%3Db", "until=now&tail=3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := ParseEventQuery(v)
		if err != nil {
			return
		}
		e := Event{Kind: EventKindConfig, Source: "file", Op: OpAdd, Pods: []PodRef{{Namespace: "a"}, {Namespace: "b"}}}
		if fe, ok, _ := q.Match(e); ok && len(q.Namespaces) == 1 && !strings.HasPrefix(q.Namespaces[0], "!") {
			for _, p := range fe.Pods {
				if p.Namespace != q.Namespaces[0] {
					t.Fatalf("namespace filter %q kept %q", q.Namespaces[0], p.Namespace)
				}
			}
		}
		q.Match(Event{Kind: EventKindPLEG, Namespace: "a"})
	})
}

// TestMatchOrigin filters config events by where their static pods came
// from: exactly, keeping an event's pods that pass; a plain origin leaves
// PLEG events out.
func TestMatchOrigin(t *testing.T) {
	const web, bak, url = "/etc/kubernetes/manifests/web.yaml", "/etc/kubernetes/manifests/web.yaml.bak", "http://config.example/pods?token=xxxxx"
	pod := func(name, origin string) PodRef { return PodRef{Name: name, Namespace: "demo", Origin: origin} }
	remove := Event{Kind: EventKindConfig, Op: OpRemove, Source: SourceFile, Pods: []PodRef{pod("web-node-1", bak)}}
	add := Event{Kind: EventKindConfig, Op: OpAdd, Source: SourceFile, Pods: []PodRef{pod("web-node-1", web), pod("db-node-1", "/etc/kubernetes/manifests/db.yaml")}}
	fromURL := Event{Kind: EventKindConfig, Op: OpAdd, Source: SourceHTTP, Pods: []PodRef{pod("cfg-node-1", url)}}
	api := Event{Kind: EventKindConfig, Op: OpAdd, Source: SourceAPI, Pods: []PodRef{pod("api", "")}}
	died := Event{Kind: EventKindPLEG, Type: "ContainerDied", PodName: "web-node-1", Namespace: "demo"}
	tests := []struct {
		name    string
		origins []string
		want    []int // pods kept of remove, add, fromURL, api; -1: the event is left out
		pleg    bool
	}{
		{name: "none", want: []int{1, 2, 1, 1}, pleg: true},
		{name: "one file", origins: []string{web}, want: []int{-1, 1, -1, -1}},
		{name: "two files", origins: []string{web, bak}, want: []int{1, 1, -1, -1}},
		{name: "exact, not a prefix", origins: []string{"/etc/kubernetes/manifests/web"}, want: []int{-1, -1, -1, -1}},
		{name: "a masked URL", origins: []string{url}, want: []int{-1, -1, 1, -1}},
		{name: "excluded", origins: []string{"!" + bak}, want: []int{-1, 2, 1, 1}, pleg: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := EventQuery{Origins: tt.origins}
			if err := q.Validate(); err != nil {
				t.Fatal(err)
			}
			for i, e := range []Event{remove, add, fromURL, api} {
				got, keep, _ := q.Match(e)
				n := -1
				if keep {
					n = len(got.Pods)
				}
				if n != tt.want[i] {
					t.Errorf("%s from %s: kept %d pods (%+v), want %d", e.Op, e.Source, n, got.Pods, tt.want[i])
				}
			}
			if _, keep, _ := q.Match(died); keep != tt.pleg {
				t.Errorf("ContainerDied: kept %v, want %v", keep, tt.pleg)
			}
		})
	}
}

// TestMatchHandler filters events of both kinds by their handler, without
// regard to case.
func TestMatchHandler(t *testing.T) {
	add := Event{Kind: EventKindConfig, Op: OpAdd, Handler: SyncHandlerPodAdditions, Pods: []PodRef{{Name: "web", Namespace: "default"}}}
	died := Event{Kind: EventKindPLEG, Type: "ContainerDied", Handler: SyncHandlerPodSyncs}
	removed := Event{Kind: EventKindPLEG, Type: "ContainerRemoved", Handler: SyncHandlerIgnored, Ignored: "ContainerRemoved is not sync-worthy"}
	tests := []struct {
		name     string
		handlers []string
		want     []bool // add, died, removed
	}{
		{name: "none", want: []bool{true, true, true}},
		{name: "one, lower case", handlers: []string{"handlepodsyncs"}, want: []bool{false, true, false}},
		{name: "two kinds", handlers: []string{"HandlePodAdditions", "Ignored"}, want: []bool{true, false, true}},
		{name: "excluded", handlers: []string{"!ignored"}, want: []bool{true, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := EventQuery{Handlers: tt.handlers}
			if err := q.Validate(); err != nil {
				t.Fatal(err)
			}
			for i, e := range []Event{add, died, removed} {
				if _, keep, _ := q.Match(e); keep != tt.want[i] {
					t.Errorf("%s %s%s: kept %v, want %v", e.Kind, e.Op, e.Type, keep, tt.want[i])
				}
			}
		})
	}
}

func TestGapless(t *testing.T) {
	every := []string{EventKindConfig, EventKindPLEG, EventKindInput}
	tests := []struct {
		name string
		q    EventQuery
		want bool
	}{
		{name: "no filter, which leaves inputs out", q: EventQuery{}, want: false},
		{name: "every kind", q: EventQuery{Kinds: every}, want: true},
		{name: "every kind and a tail", q: EventQuery{Kinds: every, Tail: 3}, want: true},
		{name: "every kind but inputs", q: EventQuery{Kinds: every[:2]}, want: false},
		{name: "every kind and an op", q: EventQuery{Kinds: every, Ops: []string{OpAdd}}, want: false},
		{name: "every kind and an excluded one", q: EventQuery{Kinds: append([]string{"!" + EventKindPLEG}, every...)}, want: false},
		{name: "every kind and a selector", q: EventQuery{Kinds: every, Selector: "app=web"}, want: false},
	}
	for _, tt := range tests {
		if got := tt.q.Gapless(); got != tt.want {
			t.Errorf("%s: Gapless() = %v, want %v", tt.name, got, tt.want)
		}
	}
}

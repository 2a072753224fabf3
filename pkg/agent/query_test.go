package agent

import (
	"net/url"
	"testing"
	"time"

	api "github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

func TestParseStreamQuery(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		query   string
		want    streamQuery
		wantErr bool
	}{
		{name: "empty", query: ""},
		{name: "since a sequence number", query: "since=42", want: streamQuery{since: 42}},
		{name: "since a duration", query: "since=5m", want: streamQuery{sinceTime: now.Add(-5 * time.Minute)}},
		{name: "everything", query: "since=1&snapshot=true&kind=pleg&source=file&namespace=kube-system&epoch=abc",
			want: streamQuery{since: 1, snapshot: true, kind: "pleg", source: "file", namespace: "kube-system", epoch: "abc"}},
		{name: "negative duration", query: "since=-5m", wantErr: true},
		{name: "garbage since", query: "since=soon", wantErr: true},
		{name: "unknown kind", query: "kind=all", wantErr: true},
		{name: "unknown source", query: "source=etcd", wantErr: true},
		{name: "bad namespace", query: "namespace=UPPER", wantErr: true},
		{name: "bad snapshot", query: "snapshot=2", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseStreamQuery(q, now)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// FuzzParseStreamQuery feeds arbitrary query strings to the stream's parser
// and filter: they may be refused, never crash.
func FuzzParseStreamQuery(f *testing.F) {
	for _, s := range []string{"", "since=1", "since=5m&snapshot=true", "kind=pleg&namespace=a", "source=file", "epoch=x&since=18446744073709551615", "since=%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		sq, err := parseStreamQuery(q, time.Now())
		if err != nil {
			return
		}
		e := api.Event{Kind: api.EventKindConfig, Source: "file", Pods: []api.PodRef{{Namespace: "a"}, {Namespace: "b"}}}
		if fe, ok, _ := sq.filter(e); ok && sq.namespace != "" {
			for _, p := range fe.Pods {
				if p.Namespace != sq.namespace {
					t.Fatalf("namespace filter %q kept %q", sq.namespace, p.Namespace)
				}
			}
		}
		sq.filter(api.Event{Kind: api.EventKindPLEG, Namespace: "a"})
	})
}

// FuzzParseSource checks the ?source= parser accepts exactly the kubelet's
// source names.
func FuzzParseSource(f *testing.F) {
	for _, s := range []string{"", "file", "http", "api", "FILE", "*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseSource(s)
		valid := s == "" || s == api.SourceFile || s == api.SourceHTTP || s == api.SourceAPI
		if valid != (err == nil) || (err == nil && got != s) {
			t.Fatalf("parseSource(%q) = %q, %v", s, got, err)
		}
	})
}

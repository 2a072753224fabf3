package v1alpha1_test

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1/querytest"
)

// TestPodQueryMatch runs the shared pod cases against Match, the filter a
// client applies after an agent that ignores the query.
func TestPodQueryMatch(t *testing.T) {
	querytest.RunPods(t, func(t *testing.T, q v1alpha1.PodQuery) []v1alpha1.PodInfo {
		var out []v1alpha1.PodInfo
		for _, p := range querytest.Pods() {
			if q.Match(p) {
				out = append(out, p)
			}
		}
		return out
	})
}

// TestPodQueryEncodeParse checks that every case's query comes back from
// its encoding as it was, and that the bad queries are refused with a
// message that names the parameter.
func TestPodQueryEncodeParse(t *testing.T) {
	for _, c := range querytest.PodCases {
		t.Run(c.Name, func(t *testing.T) {
			got, err := v1alpha1.ParsePodQuery(c.Query.Encode())
			if err != nil {
				t.Fatalf("parsing %s: %v", c.Query.Encode().Encode(), err)
			}
			if got.Source != c.Query.Source || !reflect.DeepEqual(got.Namespaces, c.Query.Namespaces) ||
				!reflect.DeepEqual(got.Pods, c.Query.Pods) || got.Selector != c.Query.Selector {
				t.Fatalf("parsed %+v, want %+v", got, c.Query)
			}
			if !got.Filtered() && len(c.Want) != len(querytest.Pods()) {
				t.Fatalf("%+v is not Filtered, yet keeps %d of %d pods", got, len(c.Want), len(querytest.Pods()))
			}
		})
	}
	for _, c := range querytest.BadPodQueries {
		t.Run(c.Name, func(t *testing.T) {
			v, err := url.ParseQuery(c.Query)
			if err != nil {
				t.Fatal(err)
			}
			q, err := v1alpha1.ParsePodQuery(v)
			if err == nil || !strings.Contains(err.Error(), c.Want) {
				t.Fatalf("ParsePodQuery(%s) = %v, want an error with %q", c.Query, err, c.Want)
			}
			for _, p := range querytest.Pods() {
				if q.Match(p) {
					t.Fatalf("a bad query matched %s/%s", p.Namespace, p.Name)
				}
			}
		})
	}
}

// FuzzParsePodQuery checks that any query is parsed or refused without a
// panic, and that what is parsed encodes to a query that parses the same.
func FuzzParsePodQuery(f *testing.F) {
	for _, s := range []string{"", "source=file", "source=FILE", "namespace=default&namespace=!kube-system", "pod=*-node-1", "labelSelector=app%20in%20(a,b)", "labelSelector=%3D%3D"} {
		f.Add(s)
	}
	for _, c := range querytest.BadPodQueries {
		f.Add(c.Query)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := url.ParseQuery(s)
		if err != nil {
			return
		}
		q, err := v1alpha1.ParsePodQuery(v)
		if err != nil {
			if !strings.Contains(err.Error(), `"`) {
				t.Fatalf("ParsePodQuery(%s): %v names no value", s, err)
			}
			return
		}
		again, err := v1alpha1.ParsePodQuery(q.Encode())
		if err != nil || again.Source != q.Source || again.Selector != q.Selector || !reflect.DeepEqual(again.Namespaces, q.Namespaces) || !reflect.DeepEqual(again.Pods, q.Pods) {
			t.Fatalf("ParsePodQuery(%s) = %+v, which encodes to %+v, %v", s, q, again, err)
		}
		q.Match(querytest.Pods()[0])
	})
}

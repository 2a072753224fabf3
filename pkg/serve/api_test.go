package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/serve/servetest"
)

// onePodState is a fakeState that has one pod.
type onePodState struct {
	fakeState
	uid types.UID
}

func (s onePodState) Pod(uid types.UID) (v1alpha1.PodInfo, error) {
	if uid != s.uid {
		return v1alpha1.PodInfo{}, fmt.Errorf("no pod with UID %s", uid)
	}
	return v1alpha1.PodInfo{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindPod), UID: uid}, nil
}

// TestPodOfAnyUID finds a pod whatever characters its UID holds, as the
// client escapes it: slashes, a path's "//" and "..", controls and
// percent signs are one segment of the path, not a route of their own or
// a redirect to a cleaned path.
func TestPodOfAnyUID(t *testing.T) {
	for _, uid := range []types.UID{
		"0f8e2a4c-0000-4000-8000-000000000001",
		"a/b",
		"http://evil.invalid/../x/./y",
		"\x1b]0;pwned\x07 %2F\r\n\u202e\x00",
	} {
		t.Run(fmt.Sprintf("%q", uid), func(t *testing.T) {
			ta := startAPIOver(t, onePodState{uid: uid}, 10)
			a := servetest.Do(t, http.MethodGet, ta.url+v1alpha1.PodPath(url.PathEscape(string(uid))))
			var info v1alpha1.PodInfo
			if err := json.Unmarshal(a.Body, &info); err != nil || a.Code != http.StatusOK || info.UID != uid {
				t.Fatalf("answered %d %s (%v), want 200 with the pod", a.Code, a.Body, err)
			}
			a = servetest.Do(t, http.MethodGet, ta.url+v1alpha1.PodPath(url.PathEscape(string(uid)+"/")))
			if a.Code != http.StatusNotFound || !strings.Contains(string(a.Body), "no pod with UID") {
				t.Fatalf("another UID answered %d %s, want the State's 404", a.Code, a.Body)
			}
		})
	}
}

// TestNoMetricsHandler answers /metrics as any path the API does not
// serve when it has no metrics handler.
func TestNoMetricsHandler(t *testing.T) {
	ta := startAPI(t, 10)
	a := servetest.Do(t, http.MethodGet, ta.url+v1alpha1.MetricsPath)
	var st v1alpha1.Status
	if err := json.Unmarshal(a.Body, &st); err != nil || a.Code != http.StatusNotFound || !strings.HasPrefix(st.Message, "no such endpoint: "+strconv.Quote(v1alpha1.MetricsPath)) {
		t.Fatalf("answered %d %s (%v), want a 404 Status", a.Code, a.Body, err)
	}
}

package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
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

// get answers a GET of path (escaped) with its status and body.
func get(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
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
			code, body := get(t, ta.url+v1alpha1.PodPath(url.PathEscape(string(uid))))
			var info v1alpha1.PodInfo
			if err := json.Unmarshal(body, &info); err != nil || code != http.StatusOK || info.UID != uid {
				t.Fatalf("answered %d %s (%v), want 200 with the pod", code, body, err)
			}
			code, body = get(t, ta.url+v1alpha1.PodPath(url.PathEscape(string(uid)+"/")))
			if code != http.StatusNotFound || !strings.Contains(string(body), "no pod with UID") {
				t.Fatalf("another UID answered %d %s, want the State's 404", code, body)
			}
		})
	}
}

// TestNoMetricsHandler answers /metrics as any path the API does not
// serve when it has no metrics handler.
func TestNoMetricsHandler(t *testing.T) {
	ta := startAPI(t, 10)
	code, body := get(t, ta.url+v1alpha1.MetricsPath)
	var st v1alpha1.Status
	if err := json.Unmarshal(body, &st); err != nil || code != http.StatusNotFound || !strings.HasPrefix(st.Message, "no such endpoint: "+v1alpha1.MetricsPath) {
		t.Fatalf("answered %d %s (%v), want a 404 Status", code, body, err)
	}
}

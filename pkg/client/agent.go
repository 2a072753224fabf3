package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiversion "k8s.io/apimachinery/pkg/version"
)

// Via says how requests reach an agent.
type Via string

// Ways to reach an agent.
const (
	// ViaNodeProxy goes through the API server's node proxy
	// (get nodes/proxy).
	ViaNodeProxy Via = "node-proxy"
	// ViaPodProxy goes through the API server's proxy to the agent's pod
	// (get pods/proxy in the agent's namespace).
	ViaPodProxy Via = "pod-proxy"
	// ViaDirect talks to one agent URL.
	ViaDirect Via = "direct"
)

// Agent is a client of one podsrc agent.
type Agent struct {
	// Node is the node the agent runs for; empty for a direct URL.
	Node string
	// Via is how requests reach the agent.
	Via Via
	// Port is the agent's port (proxy modes).
	Port int

	// resolve returns the base URL requests are made under; for the pod
	// proxy it finds the agent's pod anew each time.
	resolve func(ctx context.Context) (string, error)
	// target describes where the requests go, for messages about the
	// transport ("the API server at ...", "http://host:port").
	target string
	// http makes requests bounded by the request timeout; stream makes the
	// long-lived event stream requests.
	http   *http.Client
	stream *http.Client
	// budget is the command's, shared with its other agents; charged is
	// what this agent's answers hold of it and did not give back
	// (Release).
	budget  *Budget
	charged atomic.Int64
}

// Release gives back to the command's budget what the answers a read took
// of it: a caller that printed them and let them go holds them no more.
// The event history a stream read is not given back.
func (a *Agent) Release() {
	a.budget.Give(a.charged.Swap(0))
}

// hold charges n bytes that this agent's answers hold to the command's
// budget, reporting whether they fit.
func (a *Agent) hold(n int64) bool {
	if !a.budget.Take(n) {
		return false
	}
	a.charged.Add(n)
	return true
}

// unhold gives back n bytes hold charged.
func (a *Agent) unhold(n int64) {
	a.charged.Add(-n)
	a.budget.Give(n)
}

// String names the agent in messages.
func (a *Agent) String() string {
	if a.Node != "" {
		return fmt.Sprintf("the agent on node %q", a.Node)
	}
	return "the agent at " + a.target
}

// Sources returns the agent's pod sources.
func (a *Agent) Sources(ctx context.Context) (*v1alpha1.SourceList, error) {
	out := &v1alpha1.SourceList{}
	if err := a.get(ctx, v1alpha1.SourcesPath, nil, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Pods returns the agent's pods that q keeps. The agent filters them, so
// that the pods left out do not cross the proxy.
func (a *Agent) Pods(ctx context.Context, q v1alpha1.PodQuery) (*v1alpha1.PodList, error) {
	if err := q.Validate(); err != nil {
		return nil, newError(ReasonBadRequest, err, "asking %s for pods: %v", a, err)
	}
	out := &v1alpha1.PodList{}
	if err := a.get(ctx, v1alpha1.PodsPath, q.Encode(), out); err != nil {
		return nil, err
	}
	return out, nil
}

// Pod returns one pod with the merged pod in full.
func (a *Agent) Pod(ctx context.Context, uid string) (*v1alpha1.PodInfo, error) {
	out := &v1alpha1.PodInfo{}
	if err := a.get(ctx, v1alpha1.PodPath(url.PathEscape(uid)), nil, out); err != nil {
		return nil, err
	}
	return out, nil
}

// PLEG returns the state of the agent's PLEG.
func (a *Agent) PLEG(ctx context.Context) (*v1alpha1.PLEGStatus, error) {
	out := &v1alpha1.PLEGStatus{}
	if err := a.get(ctx, v1alpha1.PLEGPath, nil, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Version returns the agent's version; a version in it that does not
// parse as one reads UnknownVersion.
func (a *Agent) Version(ctx context.Context) (*v1alpha1.Version, error) {
	out := &v1alpha1.Version{}
	if err := a.get(ctx, v1alpha1.VersionPath, nil, out); err != nil {
		return nil, err
	}
	return checkedVersion(out), nil
}

// get fetches path and decodes the JSON answer into out, which must be a
// top-level v1alpha1 object.
func (a *Agent) get(ctx context.Context, path string, q url.Values, out any) error {
	resp, err := a.do(ctx, a.http, path, q)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return a.statusError(ctx, path, resp)
	}
	body, err := a.readBody(ctx, path, resp)
	if err != nil {
		return err
	}
	// The body is let go once decoded; the decoded answer is charged.
	defer a.unhold(int64(len(body)))
	var tm metav1.TypeMeta
	if err := json.Unmarshal(body, &tm); err != nil {
		return newError(ReasonOther, err, "%s answered %s with something that is not JSON: is it a podsrc agent?", a, path)
	}
	if tm.APIVersion != v1alpha1.GroupVersion {
		return a.skewError(tm.APIVersion, "")
	}
	return a.decodeHeld(path, body, out)
}

// do sends a GET of path with client.
func (a *Agent) do(ctx context.Context, client *http.Client, path string, q url.Values) (*http.Response, error) {
	base, err := a.resolve(ctx)
	if err != nil {
		return nil, err
	}
	u := base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("building the request for %s: %w", path, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, a.transportError(ctx, err)
	}
	return resp, nil
}

// skewError says that the agent speaks served instead of v1alpha1;
// agentVersion is its release when known.
func (a *Agent) skewError(served, agentVersion string) error {
	rel := ""
	if v := releaseVersion(agentVersion); agentVersion != "" && v != UnknownVersion {
		rel = " " + v
	}
	if served == "" {
		return newError(ReasonSkew, nil, "%s%s does not serve %s: it is older than this kubectl-podsrc or not a podsrc agent; upgrade it (%s)", a, rel, v1alpha1.APIPrefix, DeployCommand)
	}
	servedVersion := apiVersion(strings.TrimPrefix(served, v1alpha1.GroupName+"/"))
	if apiversion.CompareKubeAwareVersionStrings(servedVersion, v1alpha1.VersionName) > 0 {
		return newError(ReasonSkew, nil, "%s%s is too new: it serves podsrc.io/%s, this kubectl-podsrc speaks %s; upgrade kubectl-podsrc", a, rel, servedVersion, v1alpha1.GroupVersion)
	}
	return newError(ReasonSkew, nil, "%s%s is too old: it serves podsrc.io/%s, this kubectl-podsrc speaks %s; upgrade the agent (%s)", a, rel, servedVersion, v1alpha1.GroupVersion, DeployCommand)
}

// checkSkew is called when the agent does not know a path: it asks the
// agent's /version what it serves.
func (a *Agent) checkSkew(ctx context.Context) error {
	v := &v1alpha1.Version{}
	resp, err := a.do(ctx, a.http, v1alpha1.VersionPath, nil)
	if err == nil {
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			var body []byte
			if body, err = a.readBody(ctx, v1alpha1.VersionPath, resp); err == nil {
				err = json.Unmarshal(body, v)
				a.unhold(int64(len(body)))
			}
		} else {
			err = fmt.Errorf("HTTP %d", resp.StatusCode)
		}
	}
	if err != nil || v.ServedVersion == "" {
		return a.skewError("", "")
	}
	return a.skewError(v.ServedVersion, v.AgentVersion)
}

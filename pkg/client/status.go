package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// statusBody is what the API server's metav1.Status and the agent's
// v1alpha1.Status have in common.
type statusBody struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Code       int    `json:"code"`
	Message    string `json:"message"`
	Reason     string `json:"reason"`
	Details    *struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"details"`
}

// statusError turns an answer other than 200 into an Error.
func (a *Agent) statusError(ctx context.Context, path string, resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var st statusBody
	isJSON := json.Unmarshal(body, &st) == nil && st.Kind != ""
	code := resp.StatusCode
	switch {
	case isJSON && st.Kind == "Status" && st.APIVersion == "v1":
		return a.apiServerError(code, st)
	case isJSON && st.APIVersion == v1alpha1.GroupVersion:
		if code == http.StatusNotFound {
			if uid, ok := strings.CutPrefix(path, v1alpha1.PodPath("")); ok {
				return newError(ReasonNotFound, nil, "%s has no pod with UID %s", a, uid)
			}
			return a.checkSkew(ctx)
		}
		reason := ReasonOther
		switch {
		case code == http.StatusBadRequest:
			reason = ReasonBadRequest
		case code >= 500:
			reason = ReasonUnavailable
		}
		return newError(reason, nil, "%s answered %d: %s", a, code, oneLine(st.Message))
	case isJSON && strings.HasPrefix(st.APIVersion, v1alpha1.GroupName+"/"):
		return a.skewError(st.APIVersion, "")
	case code == http.StatusNotFound:
		return a.checkSkew(ctx)
	case code >= 500:
		return newError(ReasonUnavailable, nil, "%s answered %d: %s", a, code, oneLine(string(body)))
	}
	return newError(ReasonOther, nil, "%s answered %d: %s", a, code, oneLine(string(body)))
}

// apiServerError turns a metav1.Status of the API server (the proxy's own
// answer, not the agent's) into an Error.
func (a *Agent) apiServerError(code int, st statusBody) error {
	msg := oneLine(st.Message)
	switch {
	case code == http.StatusUnauthorized:
		return newError(ReasonUnauthorized, nil, "the API server rejected your credentials (%s): check --kubeconfig, --context and --user", msg)
	case code == http.StatusForbidden:
		return a.forbiddenError(msg)
	case code == http.StatusNotFound && st.Details != nil && st.Details.Kind == "nodes":
		return newError(ReasonNodeNotFound, nil, "node %q not found: `kubectl get nodes` lists the nodes", a.Node)
	case code == http.StatusNotFound && st.Details != nil && st.Details.Kind == "pods":
		// The agent's pod went away since it was looked up.
		return newError(ReasonUnavailable, nil, "the agent pod on node %q is gone (%s); it is probably being replaced", a.Node, msg)
	case strings.Contains(msg, "connection refused"):
		return newError(ReasonNoAgent, nil, "no podsrc agent answers on node %q port %d (%s): deploy it with `%s`, or pass the port it listens on with --agent-port", a.Node, a.Port, msg, DeployCommand)
	case strings.Contains(msg, "timeout") || strings.Contains(msg, "deadline exceeded"):
		return newError(ReasonTimeout, nil, "the API server timed out reaching %s on port %d (%s): is the node up, and may the API server reach that port?", a, a.Port, msg)
	case strings.Contains(msg, "no route to host"):
		return newError(ReasonNoAgent, nil, "the API server cannot reach node %q (%s): is the node up?", a.Node, msg)
	case code >= 500:
		return newError(ReasonUnavailable, nil, "the API server could not reach %s: %s", a, msg)
	}
	return newError(ReasonOther, nil, "the API server answered %d for %s: %s", code, a, msg)
}

// forbiddenError names the permission that is missing and the role that
// grants it.
func (a *Agent) forbiddenError(msg string) error {
	if a.Via == ViaPodProxy {
		return newError(ReasonForbidden, nil, "forbidden (%s): --via=pod-proxy needs get pods/proxy and list pods in namespace %s; ClusterRole %s (made by %s) grants them when bound there with a RoleBinding", msg, AgentNamespace, PodProxyRole, DeployCommand)
	}
	return newError(ReasonForbidden, nil, "forbidden (%s): reaching agents through the node proxy needs get nodes/proxy (ClusterRole %s, made by %s); or use --via=pod-proxy, which needs only get pods/proxy in namespace %s (ClusterRole %s)", msg, NodeProxyRole, DeployCommand, AgentNamespace, PodProxyRole)
}

// transportError classifies a failed round trip.
func (a *Agent) transportError(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	where := a.target
	if a.Via != ViaDirect {
		where = "the API server at " + a.target
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		if a.Via == ViaDirect {
			return newError(ReasonConnectionRefused, err, "connection refused by %s: is podsrc-agent running there, on that port?", a.target)
		}
		return newError(ReasonConnectionRefused, err, "connection refused by %s: check --kubeconfig, --context and --server", where)
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return a.timeoutError(err, where)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return newError(ReasonOther, err, "cannot resolve %s: %v", where, dnsErr)
	}
	return newError(ReasonUnavailable, err, "talking to %s: %v", where, err)
}

// timeoutError says that the agent, reached through where, did not answer
// in time, and what to check.
func (a *Agent) timeoutError(err error, where string) error {
	within := ""
	if t := a.http.Timeout; t > 0 {
		within = " within " + t.String()
	}
	check := "is the agent running there, and the address reachable from here?"
	if a.Via != ViaDirect {
		check = fmt.Sprintf("is the agent on the node running and ready (kubectl -n %s get pods -o wide --field-selector spec.nodeName=%s)?", AgentNamespace, a.Node)
	}
	return newError(ReasonTimeout, err, "%s did not answer%s (through %s): %s --request-timeout sets the limit (0: none)", a, within, where, check)
}

// oneLine returns the first line of s, trimmed and bounded.
func oneLine(s string) string {
	s = string(bytes.TrimSpace([]byte(s)))
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + " ..."
	}
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	if s == "" {
		return "(empty answer)"
	}
	return s
}

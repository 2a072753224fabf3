//go:build linux

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/agent"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/nodeenv"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/serve"
	"github.com/podsrc/podsrc/pkg/source"
)

// kubeletVersion is the version the simulated nodes and decoder claim, and
// kubeletMinor the agents'.
const (
	kubeletVersion = "v1.36.3"
	kubeletMinor   = kubeletminor.V136
)

// agents are the simulated nodes' agents in this process: each is a real
// pkg/agent (URL source, merge, view, event ring, HTTP server and limits) on
// its own listener; its static pod URL is a loopback server of synthetic pod
// lists, and the PLEG is off (events are published into its event ring).
type agents struct {
	// events is each node's agent's event ring, by node name.
	events map[string]*eventring.Ring
	urls   *http.Server
	cancel context.CancelFunc
	wg     sync.WaitGroup
	errs   chan error
}

// startAgents serves one agent per listener, node names[i] on lis[i], each
// with podsPerNode synthetic static pods from its static pod URL.
func startAgents(ctx context.Context, names []string, lis []net.Listener, podsPerNode int) (*agents, error) {
	urlLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for the static pod URLs: %w", err)
	}
	// 500 agents' start lines would bury the table: errors only.
	ctx, cancel := context.WithCancel(klog.NewContext(ctx, klog.Background().V(100)))
	a := &agents{events: make(map[string]*eventring.Ring, len(names)), cancel: cancel, errs: make(chan error, len(names)+1)}
	a.urls = &http.Server{Handler: podLists(podsPerNode), ReadHeaderTimeout: 10 * time.Second}
	a.wg.Go(func() {
		if err := a.urls.Serve(urlLis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.errs <- fmt.Errorf("serving the static pod URLs: %w", err)
		}
	})
	for i, name := range names {
		cfg := &agent.Config{
			Node:          nodeenv.Env{NodeName: name},
			Sources:       source.Config{StaticPodURL: fmt.Sprintf("http://%s/%s", urlLis.Addr(), name), HTTPCheckFrequency: 20 * time.Second},
			PLEG:          pleg.Options{RelistPeriod: pleg.DefaultRelistPeriod, RelistThreshold: pleg.DefaultRelistThreshold},
			ListenAddress: lis[i].Addr().String(),
			Mode:          merge.Incremental,
			// A small ring: 500 agents of 10,000 slots each would be
			// most of this process's memory, and no stream here lags.
			EventBuffer: 1000,
			Events:      eventring.New(1000, nil),
			Heartbeat:   agent.DefaultHeartbeat,
			Limits:      serve.DefaultLimits(),
		}
		ag, err := agent.New(cfg, kubeletMinor, syntheticDecoder{})
		if err != nil {
			return nil, errors.Join(fmt.Errorf("creating the agent of %s: %w", name, err), a.stop())
		}
		a.events[name] = cfg.Events
		l := lis[i]
		a.wg.Go(func() {
			if err := ag.Run(ctx, l, nil); err != nil {
				a.errs <- fmt.Errorf("agent of %s: %w", name, err)
			}
		})
	}
	return a, nil
}

// stop stops every agent and the URL server, and returns their errors.
func (a *agents) stop() error {
	a.cancel()
	shutdown, done := context.WithTimeout(context.Background(), 10*time.Second)
	defer done()
	err := a.urls.Shutdown(shutdown)
	a.wg.Wait()
	close(a.errs)
	for e := range a.errs {
		err = errors.Join(err, e)
	}
	return err
}

// podLists serves, at /<node>, a pod list of n synthetic static pods.
func podLists(n int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		node := strings.TrimPrefix(r.URL.Path, "/")
		list := v1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}}
		for i := range n {
			list.Items = append(list.Items, v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("static-%02d", i), Namespace: "kube-system",
					Labels: map[string]string{"app": fmt.Sprintf("static-%02d", i), "node": node}},
				Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "podsrc.local/testimg:v1",
					Args: []string{"-sleep", "0"}}}},
			})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(list)
	})
}

// syntheticDecoder decodes the URL server's pod lists the way the kubelet's
// decoder shapes a static pod (node-name suffix, spec.nodeName, a UID
// hashed from the URL and the pod, config.hash and config.source), without
// the kubelet's defaulting, validation and exact hash: those need the
// kubelet decoder modules, which the root module cannot link.
type syntheticDecoder struct{}

func (syntheticDecoder) KubeletVersion() string { return kubeletVersion }

func (syntheticDecoder) DecodeFile([]byte, string, string) (*v1.Pod, []string, error) {
	return nil, nil, errors.New("the simulated nodes have no static pod files")
}

func (syntheticDecoder) DecodeURL(data []byte, url, nodeName string) ([]*v1.Pod, []string, error) {
	var list v1.PodList
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, nil, fmt.Errorf("%s: decoding a pod list: %w", url, err)
	}
	out := make([]*v1.Pod, len(list.Items))
	for i := range list.Items {
		p := &list.Items[i]
		sum := sha256.Sum256([]byte(url + "\x00" + p.Namespace + "/" + p.Name))
		uid := hex.EncodeToString(sum[:16])
		p.Name += "-" + nodeName
		p.UID = types.UID(uid)
		p.Spec.NodeName = nodeName
		p.Annotations = map[string]string{merge.ConfigHashAnnotation: uid, merge.ConfigSourceAnnotation: v1alpha1.SourceHTTP}
		p.Status.Phase = v1.PodPending
		out[i] = p
	}
	return out, nil, nil
}

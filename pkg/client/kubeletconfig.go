package client

import (
	"context"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// KubeletConfig returns the kubelet configuration the agent read, masked.
func (a *Agent) KubeletConfig(ctx context.Context) (*v1alpha1.KubeletConfig, error) {
	out := &v1alpha1.KubeletConfig{}
	if err := a.get(ctx, v1alpha1.KubeletConfigPath, nil, out); err != nil {
		return nil, err
	}
	return out, nil
}

package admission

import "github.com/podsrc/podsrc/pkg/api/v1alpha1"

// Settings returns c as an agent records it among its inputs
// (v1alpha1.InputSettings.Admission).
func (c Config) Settings() *v1alpha1.AdmissionSettings {
	u := c.Unseen
	return &v1alpha1.AdmissionSettings{
		AdmitHandlers: c.AdmitHandlers, AllowedUnsafeSysctls: c.AllowedUnsafeSysctls,
		NoKubeletConfig: u.NoKubeletConfig, CPUManagerPolicy: u.CPUManagerPolicy, MemoryManagerPolicy: u.MemoryManagerPolicy,
		TopologyManagerPolicy: u.TopologyManagerPolicy, AppArmorEnabled: u.AppArmorEnabled, GracefulShutdown: u.GracefulShutdown,
	}
}

// ConfigFrom returns the Config that recorded s (Config.Settings).
func ConfigFrom(s *v1alpha1.AdmissionSettings) Config {
	return Config{
		AdmitHandlers: s.AdmitHandlers, AllowedUnsafeSysctls: s.AllowedUnsafeSysctls,
		Unseen: Unseen{
			NoKubeletConfig: s.NoKubeletConfig, CPUManagerPolicy: s.CPUManagerPolicy, MemoryManagerPolicy: s.MemoryManagerPolicy,
			TopologyManagerPolicy: s.TopologyManagerPolicy, AppArmorEnabled: s.AppArmorEnabled, GracefulShutdown: s.GracefulShutdown,
		},
	}
}

package agent

import (
	"reflect"
	"testing"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	"github.com/podsrc/podsrc/pkg/admission"
)

func TestAdmissionFlagsResolve(t *testing.T) {
	static := &kubeletv1beta1.KubeletConfiguration{
		AllowedUnsafeSysctls: []string{"net.core.somaxconn"},
		CPUManagerPolicy:     "static",
		ShutdownGracePeriodByPodPriority: []kubeletv1beta1.ShutdownGracePeriodByPodPriority{
			{Priority: 0, ShutdownGracePeriodSeconds: 10}, {Priority: 1000, ShutdownGracePeriodSeconds: 30},
		},
		ShutdownGracePeriod: metav1.Duration{Duration: 20 * time.Second},
	}
	allFlags := []string{"--allowed-unsafe-sysctls=kernel.msg*", "--cpu-manager-policy=none", "--memory-manager-policy=Static", "--topology-manager-policy=none", "--shutdown-grace-period=0s"}
	tests := []struct {
		name string
		args []string
		kc   *kubeletv1beta1.KubeletConfiguration
		want admission.Config
	}{{
		name: "neither a configuration nor flags: nothing allowed, the policies not known",
		want: admission.Config{Unseen: admission.Unseen{NoKubeletConfig: true}},
	}, {
		name: "the configuration's, the longest grace period of any priority",
		kc:   static,
		want: admission.Config{AllowedUnsafeSysctls: []string{"net.core.somaxconn"}, Unseen: admission.Unseen{CPUManagerPolicy: "static", GracefulShutdown: true}},
	}, {
		name: "every flag, as deploy passes them: known without a configuration",
		args: allFlags,
		want: admission.Config{AllowedUnsafeSysctls: []string{"kernel.msg*"}, Unseen: admission.Unseen{CPUManagerPolicy: "none", MemoryManagerPolicy: "Static", TopologyManagerPolicy: "none"}},
	}, {
		name: "flags stand for the configuration's",
		args: []string{"--allowed-unsafe-sysctls=", "--cpu-manager-policy=none", "--shutdown-grace-period=0s"},
		kc:   static,
		want: admission.Config{AllowedUnsafeSysctls: []string{}, Unseen: admission.Unseen{CPUManagerPolicy: "none"}},
	}, {
		name: "some policy flags without a configuration: still not known",
		args: []string{"--allowed-unsafe-sysctls=kernel.shm_rmid_forced", "--cpu-manager-policy=none"},
		want: admission.Config{AllowedUnsafeSysctls: []string{"kernel.shm_rmid_forced"}, Unseen: admission.Unseen{NoKubeletConfig: true}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f AdmissionFlags
			fs := pflag.NewFlagSet("agent", pflag.ContinueOnError)
			f.AddFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			c := Config{kubeletAdmission: f.Resolve(fs, tt.kc)}
			c.Node.HostRoot = t.TempDir() // no AppArmor module: disabled
			got := c.AdmissionConfig()
			disabled := false
			tt.want.Unseen.AppArmorEnabled = &disabled
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("admission config\n got %+v %+v\nwant %+v %+v", got, got.Unseen, tt.want, tt.want.Unseen)
			}
		})
	}
}

package client

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// TestAgentURLCredentialsStayOut: an --agent-url with user info reaches
// the agent with it, but no error names it.
func TestAgentURLCredentialsStayOut(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close() // nothing listens there now: the call is refused.
	a, err := (&Connector{Via: ViaDirect, AgentURL: "http://user:s3cret@" + addr, Timeout: time.Minute}).Agent("")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = a.Sources(ctx)
	if err == nil {
		t.Fatal("an agent no one serves answered")
	}
	if strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), addr) {
		t.Errorf("error %q: want the agent's address without its password", err)
	}
}

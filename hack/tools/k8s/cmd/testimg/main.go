// Command testimg is the program of the podsrc test image. It can serve HTTP,
// sleep, and exit with a chosen code, in any combination:
//
//	testimg -exit 3                 exit 3 at once
//	testimg -sleep 2s -exit 7       sleep 2 s, then exit 7
//	testimg -listen :8080           serve HTTP until SIGTERM
//	testimg -listen :8080 -sleep 1m serve HTTP for a minute, then exit
//	testimg -sleep 0                sleep until SIGTERM
//
// The HTTP server answers "/" with the message and the host name, "/healthz"
// with "ok", and "/exit?code=N" by exiting with N after the reply. SIGTERM
// and SIGINT end the program with code 0 (or -term-code).
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

func main() {
	listen := flag.String("listen", "", "address to serve HTTP on, e.g. :8080; empty serves nothing")
	sleep := flag.Duration("sleep", -1, "how long to run before exiting; 0 runs until a signal; default: exit at once unless -listen is set")
	code := flag.Int("exit", 0, "exit code once the sleep is over")
	termCode := flag.Int("term-code", 0, "exit code on SIGTERM or SIGINT")
	message := flag.String("message", "podsrc testimg", "first line of the reply to /")
	flag.Parse()
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	log.SetOutput(os.Stdout)

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)

	exits := make(chan int, 1)
	if *listen != "" {
		if err := serve(*listen, *message, exits); err != nil {
			log.Printf("serving HTTP: %v", err)
			os.Exit(2)
		}
		if *sleep < 0 {
			*sleep = 0
		}
	}
	var timer <-chan time.Time
	switch {
	case *sleep > 0:
		timer = time.After(*sleep)
	case *sleep < 0:
		log.Printf("exiting with code %d", *code)
		os.Exit(*code)
	}
	log.Printf("running (sleep %v, exit code %d)", *sleep, *code)
	select {
	case <-timer:
		log.Printf("slept %v, exiting with code %d", *sleep, *code)
		os.Exit(*code)
	case c := <-exits:
		log.Printf("asked over HTTP to exit with code %d", c)
		os.Exit(c)
	case sig := <-sigs:
		log.Printf("got %v, exiting with code %d", sig, *termCode)
		os.Exit(*termCode)
	}
}

// serve starts an HTTP server on addr in the background.
func serve(addr, message string, exits chan<- int) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	host, _ := os.Hostname()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s\nhost=%s\npath=%s\n", message, host, r.URL.Path)
	})
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/exit", func(w http.ResponseWriter, r *http.Request) {
		c, err := strconv.Atoi(r.URL.Query().Get("code"))
		if err != nil {
			http.Error(w, "code must be an integer", http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "exiting with code %d\n", c)
		select {
		case exits <- c:
		default:
		}
	})
	log.Printf("serving HTTP on %s", ln.Addr())
	go func() {
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		if err := srv.Serve(ln); err != nil {
			log.Printf("HTTP server stopped: %v", err)
		}
	}()
	return nil
}

package redact

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"postgres://atlas:pw@127.0.0.1:5432/db?sslmode=disable", "postgres://atlas:***@127.0.0.1:5432/db?sslmode=disable"},
		{"postgres://atlas:p/w@x@host/db", "postgres://atlas:***@host/db"},
		{"postgres://atlas@host/db", "postgres://atlas@host/db"},
		{"postgresql://host/db?user=a&password=pw&sslmode=require", "postgresql://host/db?user=a&password=***&sslmode=require"},
		{"host=h user=a password='p w' dbname=d", "host=h user=a password=*** dbname=d"},
		{"file:/x/catalog.db?_pragma=busy_timeout(10000)&_auth_user=u&_auth_pass=pw", "file:/x/catalog.db?_pragma=busy_timeout(10000)&_auth_user=u&_auth_pass=***"},
		{"s3.endpoint=http://127.0.0.1:9000,s3.access-key-id=AKID,s3.secret-access-key=abc,s3.session-token=tok", "s3.endpoint=http://127.0.0.1:9000,s3.access-key-id=AKID,s3.secret-access-key=***,s3.session-token=***"},
		{"https://acct.blob.core.windows.net/c?sv=2020&sig=abc%2Bd&se=2030", "https://acct.blob.core.windows.net/c?sv=2020&sig=***&se=2030"},
		{"credential=client:secret token=t adls.sas-token.acct=s clientSecret=cs apiKey=k", "credential=*** token=*** adls.sas-token.acct=*** clientSecret=*** apiKey=***"},
		{"open catalog at file:/a.db: no such file", "open catalog at file:/a.db: no such file"},
		{"journal_mode=WAL key_id=1 keyspace=x", "journal_mode=WAL key_id=1 keyspace=x"},
	}
	for _, c := range cases {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestIsSecretKey(t *testing.T) {
	for k, want := range map[string]bool{
		"password": true, "PASSWORD": true, "_auth_pass": true, "sslpassword": true, "pwd": true,
		"s3.secret-access-key": true, "s3.session-token": true, "token": true, "sig": true,
		"adls.sas-token.account": true, "client_secret": true, "credential": true, "apiKey": true,
		"gcs.oauth2.token": true, "header.Authorization": true,
		"s3.access-key-id": false, "_auth_user": false, "user": false, "sslmode": false,
		"_pragma": false, "warehouse": false, "s3.endpoint": false, "keyspace": false,
	} {
		if got := IsSecretKey(k); got != want {
			t.Errorf("IsSecretKey(%q) = %v, want %v", k, got, want)
		}
	}
}

// TestValuesAndErr: a secret quoted out of context (a driver printing the
// decoded password) is masked by value; the wrapped error keeps its cause.
func TestValuesAndErr(t *testing.T) {
	uri := "postgres://atlas:p%40ss-word@host/db?sslmode=disable"
	found := Find(uri)
	if strings.Join(found, " ") != "p%40ss-word p@ss-word" {
		t.Fatalf("Find = %q", found)
	}
	cause := fmt.Errorf("connect %s: auth failed for p@ss-word: %w", uri, fs.ErrPermission)
	err := Err(cause, found)
	if strings.Contains(err.Error(), "ss-word") || !strings.Contains(err.Error(), "postgres://atlas:***@host/db") {
		t.Fatalf("Err = %q", err)
	}
	if !errors.Is(err, fs.ErrPermission) {
		t.Fatal("Err lost the cause")
	}
	if Err(nil, found) != nil {
		t.Fatal("Err(nil) != nil")
	}
	if got := Props(map[string]string{"s3.secret-access-key": "k", "s3.region": "eu"}); got["s3.secret-access-key"] != Mask || got["s3.region"] != "eu" {
		t.Fatalf("Props = %v", got)
	}
}

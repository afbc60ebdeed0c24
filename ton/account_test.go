package ton

import (
	"strings"
	"testing"
)

func TestParseAccountComparesForms(t *testing.T) {
	// One wallet in every form an API or a user gives it (the friendly
	// forms from the ton address tests' real wallet).
	raw := "0:83dfd552e63729b472fcbcc8c45ebcc6691702558b68ec7527e1ba403a0f31a8"
	forms := []string{
		raw,
		"0:83DFD552E63729B472FCBCC8C45EBCC6691702558B68EC7527E1BA403A0F31A8",
		"EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N",
		"UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI",
	}
	want, err := ParseAccount(raw)
	if err != nil {
		t.Fatal(err)
	}
	if want.String() != raw {
		t.Fatalf("String() = %s", want.String())
	}
	for _, f := range forms {
		got, err := ParseAccount(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if got != want {
			t.Errorf("%s = %s, want %s", f, got, want)
		}
	}
	if want.Friendly(true) != forms[2] || want.Friendly(false) != forms[3] {
		t.Errorf("Friendly: %s %s", want.Friendly(true), want.Friendly(false))
	}
	if m, err := ParseAccount("-1:" + raw[2:]); err != nil || m.Workchain != -1 || m == want {
		t.Errorf("masterchain %v %v", m, err)
	}
	if _, err := ParseAccount("0:xyz"); err == nil {
		t.Error("a bad address parsed")
	}
}

func TestLinkForm(t *testing.T) {
	raw := "0:83DFD552E63729B472FCBCC8C45EBCC6691702558B68EC7527E1BA403A0F31A8"
	// An account whose user-friendly form has '-' and '_' in base64url,
	// so '+' and '/' in standard base64.
	var a Account
	for i := range a.ID {
		a.ID[i] = 0xfb
	}
	urlSafe := a.Friendly(true)
	std := strings.NewReplacer("-", "+", "_", "/").Replace(urlSafe)
	if std == urlSafe {
		t.Fatalf("%s has no '-' or '_'", urlSafe)
	}
	for addr, want := range map[string]string{
		raw: "UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI",
		"EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N": "EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N",
		std: urlSafe,
	} {
		got, err := LinkForm(addr)
		if err != nil || got != want {
			t.Errorf("%s: %s %v, want %s", addr, got, err, want)
		}
	}
	if _, err := LinkForm("0:xyz"); err == nil {
		t.Error("a bad address linked")
	}
}

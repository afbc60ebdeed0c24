package payments

import (
	"errors"
	"strings"

	"github.com/fracti/api/money"
)

// SEPA credit transfers by the EPC QR code (EPC069-12, "Quick Response Code:
// Guidelines to Enable Data Capture for the Initiation of a SEPA Credit
// Transfer", version 3.1): the payload a banking app scans.
const (
	epcMaxName  = 70  // characters of the beneficiary's name
	epcMaxText  = 140 // characters of the unstructured remittance information
	epcMaxBytes = 331 // bytes of the whole payload
)

// epcMinMinor and epcMaxMinor bound the amount: EUR0.01 to EUR999999999.99.
const (
	epcMinMinor = 1
	epcMaxMinor = 99999999999
)

// ErrRail is a payment a rail cannot carry: another currency, an amount out
// of its range, or a name it cannot write.
var ErrRail = errors.New("the rail does not carry this payment")

// sepaCountries are the countries and territories of the SEPA schemes'
// geographical scope (the EPC's list, EPC409-09): an IBAN of any other
// country cannot receive a SEPA credit transfer, so it gets no EPC code.
var sepaCountries = map[string]bool{
	// the European Union
	"AT": true, "BE": true, "BG": true, "HR": true, "CY": true, "CZ": true, "DK": true, "EE": true, "FI": true,
	"FR": true, "DE": true, "GR": true, "HU": true, "IE": true, "IT": true, "LV": true, "LT": true, "LU": true,
	"MT": true, "NL": true, "PL": true, "PT": true, "RO": true, "SK": true, "SI": true, "ES": true, "SE": true,
	// the rest of the EEA, and the other participants
	"IS": true, "LI": true, "NO": true, "CH": true, "GB": true, "MC": true, "SM": true, "VA": true, "AD": true,
	"AL": true, "MD": true, "ME": true, "MK": true, "RS": true,
	// territories with IBANs of their own code
	"AX": true, "GI": true, "GF": true, "GP": true, "MQ": true, "RE": true, "YT": true, "PM": true, "BL": true, "MF": true,
}

// EPCTransfer is a SEPA credit transfer to pay.
type EPCTransfer struct {
	Name   string // the beneficiary: their account holder's name, else their name
	IBAN   string // electronic form
	BIC    string // optional in version 002
	Amount money.Amount
	Text   string // unstructured remittance information: the settlement's reference
}

// EPC is the EPC QR code payload of t, its eleven elements separated by LF
// with none after the last: "BCD", version 002, character set 1 (UTF-8),
// identification SCT, the BIC (empty without one), the name (Latin, at
// most 70 characters, latinText), the IBAN, the amount as EUR<units>.<cents>,
// an empty purpose, an empty structured reference and the remittance text
// (at most 140 characters). It is ErrRail for another currency than EUR,
// an amount outside EUR0.01–EUR999999999.99, a name with nothing Latin, or
// an IBAN outside SEPA.
func EPC(t EPCTransfer) (string, error) {
	if t.Amount.Currency().Code() != "EUR" {
		return "", ErrRail
	}
	minor := t.Amount.Minor()
	if !minor.IsInt64() || minor.Int64() < epcMinMinor || minor.Int64() > epcMaxMinor {
		return "", ErrRail
	}
	name := latinText(t.Name, epcMaxName)
	if name == "" || len(t.IBAN) < 2 || !sepaCountries[t.IBAN[:2]] {
		return "", ErrRail
	}
	lines := []string{
		"BCD", "002", "1", "SCT",
		t.BIC,
		name,
		t.IBAN,
		"EUR" + t.Amount.String(),
		"", // purpose
		"", // structured creditor reference (ISO 11649): we give text instead
		latinText(t.Text, epcMaxText),
	}
	payload := strings.Join(lines, "\n")
	if len(payload) > epcMaxBytes {
		return "", ErrRail // cannot happen with the limits above; kept as the spec's bound
	}
	return payload, nil
}

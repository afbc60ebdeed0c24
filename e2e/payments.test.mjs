// Every payment payload the API builds, decoded by code that is not ours:
// BR Codes by pix-utils (which checks the CRC), IBANs and BICs by ibantools,
// the EPC QR code line by line from EPC069-12's published layout (no npm
// package parses EPC codes; the IBAN and BIC in it go through ibantools),
// and the UPI, Revolut, PayPal.me and TON links by Node's WHATWG URL. Run by
// httpapi/payments_e2e_test.go (`make test`), which starts the server and
// passes FRACTI_URL and two users' access tokens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePix, hasError } from 'pix-utils';
import { isValidIBAN, isValidBIC, electronicFormatIBAN } from 'ibantools';

const url = process.env.FRACTI_URL;
const tokens = { alice: process.env.FRACTI_TOKEN_ALICE, bob: process.env.FRACTI_TOKEN_BOB };
const ids = { alice: process.env.FRACTI_USER_ALICE, bob: process.env.FRACTI_USER_BOB };

async function gql(who, query, variables = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tokens[who]}` },
    body: JSON.stringify({ query, variables }),
  });
  return res.json();
}

async function must(who, query, variables) {
  const out = await gql(who, query, variables);
  assert.equal(out.errors, undefined, JSON.stringify(out.errors));
  return out.data;
}

const UPDATE = `mutation($g: ID, $h: PaymentHandlesInput) { updatePaymentHandles(groupId: $g, handles: $h) {
  source bankAccount { iban bic } pix { key type } } }`;
const SETTLE = `mutation($in: CreateSettlementInput!) { createSettlement(input: $in) { id amount currency
  paymentLink paymentOptions { kind url qrPayload text reference } } }`;

// A group where Bob owes Alice, who gives every handle as her default.
async function setUp(title) {
  const group = (await must('alice', `mutation($t: String!) { createGroup(input: {title: $t, currency: "EUR"}) { id } }`, { t: title })).createGroup.id;
  const invite = (await must('alice', `mutation($g: ID!) { createInvite(groupId: $g, input: {maxUses: 1}) { secret } }`, { g: group })).createInvite;
  await must('bob', `mutation($i: String!) { joinGroup(invite: $i) { id } }`, { i: invite.secret });
  await must('alice', UPDATE, {
    h: {
      iban: 'fr14 2004 1010 0505 0001 3m02 606', bic: 'bnpafrppxxx', accountHolder: 'Zoë Ça Müller-Šťastná',
      upi: 'alice.m@okaxis', pix: '+55 (11) 98765-4321', pixCity: 'São João del-Rei', revolut: '@alicem', paypal: 'AliceM',
      other: 'Cash: ask me',
    },
  });
  return group;
}

async function settle(group, amount, currency) {
  return (await must('bob', SETTLE, { in: { groupId: group, toUserId: ids.alice, amount, currency } })).createSettlement;
}

function option(st, kind) {
  const o = st.paymentOptions.find((x) => x.kind === kind);
  assert.ok(o, `${kind} among ${st.paymentOptions.map((x) => x.kind)}`);
  assert.equal(o.reference, 'fracti-' + st.id.replaceAll('-', ''));
  return o;
}

// decodeEPC reads an EPC QR code by EPC069-12's layout, element by element,
// refusing anything the guidelines do not allow.
function decodeEPC(payload) {
  assert.ok(new TextEncoder().encode(payload).length <= 331, 'at most 331 bytes');
  assert.ok(!payload.includes('\r'), 'LF separators');
  assert.ok(!payload.endsWith('\n\n\n\n'), 'no trailing empty lines beyond the last element');
  const l = payload.split('\n');
  assert.ok(l.length >= 10 && l.length <= 12, `10 to 12 elements, got ${l.length}`);
  const [tag, version, charset, ident, bic, name, iban, amount, purpose, structured, text = '', info = ''] = l;
  assert.equal(tag, 'BCD', 'service tag');
  assert.ok(['001', '002'].includes(version), 'version');
  assert.match(charset, /^[1-8]$/, 'character set');
  assert.equal(ident, 'SCT', 'identification');
  if (version === '001') assert.ok(bic !== '', 'a BIC is mandatory in version 001');
  if (bic !== '') assert.ok(isValidBIC(bic), `BIC ${bic} (ibantools)`);
  assert.ok(name.length >= 1 && name.length <= 70, 'beneficiary name, 1 to 70 characters');
  assert.ok(isValidIBAN(iban), `IBAN ${iban} (ibantools)`);
  assert.equal(electronicFormatIBAN(iban), iban, 'the IBAN in its electronic form');
  assert.match(amount, /^EUR(0|[1-9]\d{0,8})(\.\d{1,2})?$/, 'amount EUR, no leading zeros, at most 2 decimals');
  const value = Number(amount.slice(3));
  assert.ok(value >= 0.01 && value <= 999999999.99, 'amount within EUR0.01–EUR999999999.99');
  assert.match(purpose, /^([A-Z]{4})?$/, 'purpose: empty or 4 capitals');
  assert.ok(structured.length <= 35, 'structured reference, at most 35');
  assert.ok(text.length <= 140, 'unstructured remittance, at most 140');
  assert.ok(structured === '' || text === '', 'a structured reference or text, not both');
  assert.ok(info.length <= 70, 'beneficiary to originator information, at most 70');
  return { bic, name, iban, amount: amount.slice(3), text };
}

test('SEPA: the EPC QR code reads back as the settlement', async () => {
  const group = await setUp('SEPA');
  for (const amount of ['0.01', '12.34', '999999999.99']) {
    const st = await settle(group, amount, 'EUR');
    const epc = decodeEPC(option(st, 'SEPA').qrPayload);
    assert.equal(option(st, 'SEPA').url, null);
    assert.deepEqual(epc, {
      bic: 'BNPAFRPPXXX', name: 'Zoe Ca Muller-Stastna', iban: 'FR1420041010050500013M02606', amount, text: 'fracti-' + st.id.replaceAll('-', ''),
    });
  }
  const st = await settle(group, '1000000000.00', 'EUR');
  assert.ok(!st.paymentOptions.some((o) => o.kind === 'SEPA'), 'past EUR999999999.99: no SEPA option');
  const usd = await settle(group, '5.00', 'USD');
  assert.ok(!usd.paymentOptions.some((o) => o.kind === 'SEPA'), 'SEPA carries EUR only');
});

test('PIX: every key type in a BR Code pix-utils parses, CRC included', async () => {
  const group = await setUp('PIX');
  const byDefault = parsePix(option(await settle(group, '10.00', 'BRL'), 'PIX').qrPayload);
  assert.ok(!hasError(byDefault), JSON.stringify(byDefault));
  assert.equal(byDefault.pixKey, '+5511987654321');
  assert.equal(byDefault.merchantName, 'Zoe Ca Muller-Stastna', 'her default\'s account holder, in Latin letters');
  assert.equal(byDefault.transactionAmount, 10);
  const keys = [
    ['+55 (11) 98765-4321', '+5511987654321'],
    ['529.982.247-25', '52998224725'],
    ['11.222.333/0001-81', '11222333000181'],
    ['12.ABC.345/01DE-35', '12ABC34501DE35'],
    ['Alice.M@Example.com.br', 'alice.m@example.com.br'],
    ['123E4567-E12B-12D1-A456-426655440000', '123e4567-e12b-12d1-a456-426655440000'],
  ];
  for (const [given, stored] of keys) {
    const set = await must('alice', UPDATE, { g: group, h: { pix: given, pixCity: 'São João del-Rei' } });
    assert.equal(set.updatePaymentHandles.pix.key, stored);
    const st = await settle(group, '1234.56', 'BRL');
    const code = option(st, 'PIX').qrPayload;
    const pix = parsePix(code);
    assert.ok(!hasError(pix), `${code}: ${JSON.stringify(pix)}`);
    assert.equal(pix.type, 'STATIC');
    assert.equal(pix.pixKey, stored);
    assert.equal(pix.transactionAmount, 1234.56);
    assert.equal(pix.transactionCurrency, '986');
    assert.equal(pix.countryCode, 'BR');
    assert.equal(pix.merchantCategoryCode, '0000');
    assert.equal(pix.merchantName, 'ALICE', 'the group\'s own set has no account holder: her name as a member');
    assert.equal(pix.merchantCity, 'Sao Joao', 'the city in Latin letters, cut at a word within 15');
    assert.equal(pix.txid, ('fracti' + st.id.replaceAll('-', '')).slice(0, 25));
    const broken = code.slice(0, -1) + (code.endsWith('0') ? '1' : '0');
    assert.ok(hasError(parsePix(broken)), 'pix-utils does check the CRC');
  }
  const eur = await settle(group, '5.00', 'EUR');
  assert.ok(!eur.paymentOptions.some((o) => o.kind === 'PIX'), 'PIX carries BRL only');
});

test('UPI: the link reads back through WHATWG URL', async () => {
  const group = await setUp('UPI');
  const st = await settle(group, '1250.50', 'INR');
  const link = option(st, 'UPI').url;
  assert.equal(option(st, 'UPI').qrPayload, link, 'the same link in the QR code');
  assert.ok(!/[ +]/.test(link), 'spaces percent-encoded, never + or raw');
  const u = new URL(link);
  assert.equal(u.protocol, 'upi:');
  assert.equal(u.host, 'pay');
  const q = Object.fromEntries(u.searchParams);
  assert.deepEqual(Object.keys(q), ['pa', 'pn', 'am', 'cu', 'tn']);
  assert.equal(q.pa, 'alice.m@okaxis');
  assert.equal(q.am, '1250.50');
  assert.equal(q.cu, 'INR');
  assert.equal(q.tn, 'fracti-' + st.id.replaceAll('-', ''));
  assert.equal(q.pn, 'Zoe Ca Muller-Stastna');
  const eur = await settle(group, '5.00', 'EUR');
  assert.ok(!eur.paymentOptions.some((o) => o.kind === 'UPI'), 'UPI carries INR only');
});

test('Revolut, PayPal.me and TON: links with the amount and currency', async () => {
  const group = await setUp('Links');
  const st = await settle(group, '16.70', 'EUR');
  const rev = new URL(option(st, 'REVOLUT').url);
  assert.equal(rev.origin, 'https://revolut.me');
  assert.equal(rev.pathname, '/alicem');
  assert.deepEqual(Object.fromEntries(rev.searchParams), { amount: '1670', currency: 'EUR', note: 'fracti-' + st.id.replaceAll('-', '') });
  const pp = new URL(option(st, 'PAYPAL').url);
  assert.equal(pp.origin, 'https://paypal.me');
  assert.equal(pp.pathname, '/AliceM/16.70EUR');
  assert.equal(option(st, 'OTHER').text, 'Cash: ask me');

  const inr = await settle(group, '100.00', 'INR');
  assert.ok(!inr.paymentOptions.some((o) => o.kind === 'PAYPAL' || o.kind === 'REVOLUT'), 'neither takes INR');

  const wallet = 'EQBvI0aFLnw2QbZgjMPCLRdtRHxhUyinQudg6sdiohIwg5jL';
  await must('alice', `mutation($g: ID!, $w: String!) { updateWallet(groupId: $g, wallet: $w) { id } }`, { g: group, w: wallet });
  const ton = await settle(group, '0.5', 'TON');
  const t = option(ton, 'TON');
  assert.equal(t.url, ton.paymentLink, 'the TON payments\' own link');
  const tu = new URL(t.url);
  assert.equal(tu.protocol, 'ton:');
  assert.equal(tu.host, 'transfer');
  assert.equal(tu.searchParams.get('amount'), '500000000');
  assert.equal(tu.searchParams.get('text'), 'fracti-' + ton.id.replaceAll('-', ''));
});

test('IBAN and BIC: the API accepts what ibantools accepts', async () => {
  const group = await setUp('Checks');
  const ibans = [
    'DE89370400440532013000', 'GB29NWBK60161331926819', 'NO9386011117947', 'LC55HEMM000100010012001200023015',
    'BR1800360305000010009795493C1', 'SA0380000000608010167519', 'UA213223130000026007233566001',
    'DE89370400440532013001', 'GB29NWBK6016133192681', 'XX89370400440532013000', 'NO9386011117948',
  ];
  for (const iban of ibans) {
    const out = await gql('alice', UPDATE, { g: group, h: { iban } });
    const accepted = out.errors === undefined;
    assert.equal(accepted, isValidIBAN(iban), `${iban}: API ${accepted ? 'accepts' : out.errors[0].message}`);
    if (!accepted) assert.equal(out.errors[0].extensions.field, 'handles.iban');
  }
  for (const bic of ['DEUTDEFF', 'DEUTDEFF500', 'NWBKGB2L', 'DEUTDEF', 'DEUTDEFF5', 'DEU1DEFF', '1EUTDEFF']) {
    const out = await gql('alice', UPDATE, { g: group, h: { iban: 'DE89370400440532013000', bic } });
    const accepted = out.errors === undefined;
    assert.equal(accepted, isValidBIC(bic), `${bic}: API ${accepted ? 'accepts' : out.errors[0].message}`);
  }
});

package notify

import (
	"strings"

	"github.com/fracti/api/money"
	"github.com/fracti/api/telegram"
)

// msg names one message text; catalog holds it in every language.
type msg string

// The message texts. Placeholders are {name}; render escapes every value
// put into them, so that what people wrote can never become markup.
const (
	msgExpenseCreated      msg = "expense_created"
	msgExpenseUpdated      msg = "expense_updated"
	msgExpenseDeleted      msg = "expense_deleted"
	msgExpenseRestored     msg = "expense_restored"
	msgSettlementCreated   msg = "settlement_created"
	msgSettlementCompleted msg = "settlement_completed"
	msgMemberJoined        msg = "member_joined"
	msgMemberLeft          msg = "member_left"
	msgMemberRemoved       msg = "member_removed"
	msgShare               msg = "share"
	msgOpen                msg = "open"
	msgYouOwe              msg = "you_owe"
	msgOweLine             msg = "owe_line"
	msgMentionDebtors      msg = "mention_debtors"
	msgWeeklyReminder      msg = "weekly_reminder"
	msgWeeklySettled       msg = "weekly_settled"
	msgDebtLine            msg = "debt_line"
	msgDigestDaily         msg = "digest_daily"
	msgDigestWeekly        msg = "digest_weekly"
)

// catalog is every text in English, Russian and Spanish.
var catalog = map[string]map[msg]string{
	"en": {
		msgExpenseCreated:      "➕ {actor} added {what}: {amount}, paid by {payer}",
		msgExpenseUpdated:      "✏️ {actor} edited {what}: {amount}",
		msgExpenseDeleted:      "🗑 {actor} deleted {what} ({amount})",
		msgExpenseRestored:     "♻️ {actor} restored {what} ({amount})",
		msgSettlementCreated:   "💸 {from} → {to}: {amount} recorded",
		msgSettlementCompleted: "✅ {from} paid {to} {amount}",
		msgMemberJoined:        "👋 {name} joined the group",
		msgMemberLeft:          "🚪 {name} left the group",
		msgMemberRemoved:       "🚪 {name} was removed from the group",
		msgShare:               "<b>{group}</b>: {what}, {amount}, paid by {payer}. Your share: <b>{share}</b>",
		msgOpen:                "Open in Fracti",
		msgYouOwe:              "<b>{group}</b>: a reminder that you owe",
		msgOweLine:             "• {amount} to {to}",
		msgMentionDebtors:      "🔔 A reminder for {names}: you owe money in this group.",
		msgWeeklyReminder:      "📅 <b>{group}</b>, this week's debts:",
		msgWeeklySettled:       "📅 <b>{group}</b>: everyone is settled up.",
		msgDebtLine:            "• {from} → {to}: {amount}",
		msgDigestDaily:         "📰 Your daily digest",
		msgDigestWeekly:        "📰 Your weekly digest",
	},
	"ru": {
		msgExpenseCreated:      "➕ {actor} добавил(а) {what}: {amount}, заплатил(а) {payer}",
		msgExpenseUpdated:      "✏️ {actor} изменил(а) {what}: {amount}",
		msgExpenseDeleted:      "🗑 {actor} удалил(а) {what} ({amount})",
		msgExpenseRestored:     "♻️ {actor} восстановил(а) {what} ({amount})",
		msgSettlementCreated:   "💸 {from} → {to}: записан перевод {amount}",
		msgSettlementCompleted: "✅ {from} заплатил(а) {to} {amount}",
		msgMemberJoined:        "👋 {name} присоединился(ась) к группе",
		msgMemberLeft:          "🚪 {name} покинул(а) группу",
		msgMemberRemoved:       "🚪 {name} удалён(а) из группы",
		msgShare:               "<b>{group}</b>: {what}, {amount}, заплатил(а) {payer}. Ваша доля: <b>{share}</b>",
		msgOpen:                "Открыть в Fracti",
		msgYouOwe:              "<b>{group}</b>: напоминаем, что вы должны",
		msgOweLine:             "• {amount} — {to}",
		msgMentionDebtors:      "🔔 Напоминание для {names}: у вас есть долги в этой группе.",
		msgWeeklyReminder:      "📅 <b>{group}</b>, долги на этой неделе:",
		msgWeeklySettled:       "📅 <b>{group}</b>: все расчёты закрыты.",
		msgDebtLine:            "• {from} → {to}: {amount}",
		msgDigestDaily:         "📰 Ваша сводка за день",
		msgDigestWeekly:        "📰 Ваша сводка за неделю",
	},
	"es": {
		msgExpenseCreated:      "➕ {actor} añadió {what}: {amount}, pagado por {payer}",
		msgExpenseUpdated:      "✏️ {actor} editó {what}: {amount}",
		msgExpenseDeleted:      "🗑 {actor} eliminó {what} ({amount})",
		msgExpenseRestored:     "♻️ {actor} restauró {what} ({amount})",
		msgSettlementCreated:   "💸 {from} → {to}: {amount} registrado",
		msgSettlementCompleted: "✅ {from} pagó a {to} {amount}",
		msgMemberJoined:        "👋 {name} se unió al grupo",
		msgMemberLeft:          "🚪 {name} dejó el grupo",
		msgMemberRemoved:       "🚪 {name} salió del grupo por decisión de un administrador",
		msgShare:               "<b>{group}</b>: {what}, {amount}, pagado por {payer}. Tu parte: <b>{share}</b>",
		msgOpen:                "Abrir en Fracti",
		msgYouOwe:              "<b>{group}</b>: te recordamos que debes",
		msgOweLine:             "• {amount} a {to}",
		msgMentionDebtors:      "🔔 Un recordatorio para {names}: tenéis deudas en este grupo.",
		msgWeeklyReminder:      "📅 <b>{group}</b>, las deudas de esta semana:",
		msgWeeklySettled:       "📅 <b>{group}</b>: todo el mundo está al día.",
		msgDebtLine:            "• {from} → {to}: {amount}",
		msgDigestDaily:         "📰 Tu resumen del día",
		msgDigestWeekly:        "📰 Tu resumen de la semana",
	},
}

// Language picks the catalog for a Telegram language_code ("ru",
// "es-419", "pt-br"): its primary subtag when there is a catalog for it,
// English otherwise.
func Language(code string) string {
	primary, _, _ := strings.Cut(strings.ToLower(code), "-")
	if _, ok := catalog[primary]; ok {
		return primary
	}
	return "en"
}

// render writes message m in lang with args (name, value pairs), each value
// HTML-escaped; values in raw are put in as they are (already escaped
// markup such as a mention list).
func render(lang string, m msg, args ...string) string {
	escaped := make([]string, len(args))
	for i, a := range args {
		if i%2 == 1 {
			a = telegram.EscapeHTML(a)
		}
		escaped[i] = a
	}
	return renderRaw(lang, m, escaped...)
}

// renderRaw is render with values that are markup already (escaped where
// they came from people).
func renderRaw(lang string, m msg, args ...string) string {
	pairs := make([]string, 0, len(args))
	for i := 0; i+1 < len(args); i += 2 {
		pairs = append(pairs, "{"+args[i]+"}", args[i+1])
	}
	return strings.NewReplacer(pairs...).Replace(catalog[Language(lang)][m])
}

// formatAmount writes an amount with its currency's decimals and code:
// "42.00 EUR", "1500 JPY", "0.500000000 TON".
func formatAmount(a money.Amount) string { return a.String() + " " + a.Currency().Code() }

// mention is an HTML link that mentions a Telegram user by id, with their
// name (escaped) as its text.
func mention(userID, name string) string {
	return `<a href="tg://user?id=` + userID + `">` + telegram.EscapeHTML(name) + `</a>`
}

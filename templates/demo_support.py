"""Conversation scripts for the support-chat demo traffic (Tallyfold, a fictional SaaS).

Each scenario is a list of (user, assistant) turns. A conversation follows one scenario for its
first k turns; placeholders in braces are filled per conversation from the value pools below.
Each scenario has several openings so that first user turns differ.
"""

FIRST_NAMES = [
    "Marta", "Jonas", "Priya", "Tomasz", "Aoife", "Daniel", "Ines", "Kwame", "Sofia", "Lukas",
    "Chloe", "Mateo", "Hannah", "Rafael", "Yuki", "Elif", "Oscar", "Leila", "Niamh", "Bram",
]
BUSINESSES = [
    "Brightwater Design", "Kestrel Joinery", "Oakline Studio", "Fenwick & Hale Accounting",
    "Larkspur Yoga", "Northgate Print Co.", "Pebble Lane Bakery", "Quillstone Translations",
    "Redfern Landscaping", "Saltmarsh Coffee Roasters", "Tidewell Physio", "Umber Architecture",
    "Vantage Drone Surveys", "Willowmere Events", "Copperleaf Consulting", "Marlow Bike Repair",
]
CURRENCIES = ["EUR", "USD", "EUR", "EUR", "USD"]
PLANS = ["Starter", "Growth", "Growth", "Scale"]
ACCOUNTING = ["Xero", "QuickBooks Online", "Sage Business Cloud", "FreeAgent", "Exact Online"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]

SCENARIOS = {
    "late_payout": {
        "openings": [
            "Hi, my client paid invoice {invoice} by card on {weekday} but the money still isn't in my bank account. Where is it?",
            "Hello. A payment of {amount} {currency} shows as succeeded in Tallyfold but I don't see it in my bank. It's been days.",
            "Where is my money?? {amount} {currency} from invoice {invoice}, paid {weekday}, nothing in my account yet.",
        ],
        "turns": [
            (None,
             "I understand you're waiting on that money, {name}, so let's find where it is. Card payments reach your bank 2 business days after the payment for EU and UK accounts, and 3 business days for US accounts. You can see the expected arrival date under Payments > Payouts. Could you tell me what status the payout containing this payment shows there?"),
            ("It says paid, arrival date was yesterday.",
             "Thanks, that helps. \"Paid\" means the payout has left Tallyfold. Banks sometimes take up to 3 business days to credit it after the arrival date. On the payout's page you'll find a trace reference; your bank can use it to locate the transfer. If it still hasn't arrived after 3 business days, I'll pass this to a support agent who can investigate with our payments team."),
            ("My bank says they need more than a reference. This is ridiculous, I have rent to pay.",
             "That's a stressful position to be in, and you shouldn't have to chase this alone. I'm handing the conversation to a support agent who can confirm the transfer details directly with our payments team. They will need the email address of your Tallyfold account and the payout's trace reference. On weekdays between 08:00 and 20:00 CET the wait is under 2 hours."),
            ("The email is {email}. The reference is on the screen, do you need all of it?",
             "Yes, please paste the full trace reference as shown on the payout page. It isn't sensitive, and the agent needs the complete value to search for the transfer.\n\n[ESCALATE] Payout marked paid, not credited by the customer's bank after the arrival date; customer needs the funds urgently."),
            ("OK it's {payref}. Will someone email me?",
             "Yes. The agent will reply in this conversation and you'll also get an email at {email} when they do. You don't need to keep this window open."),
            ("Thanks. Sorry for being short earlier.",
             "No need to apologise, {name}. Waiting on money you're owed is frustrating. The agent has everything they need; keep an eye on your email for their reply."),
        ],
    },
    "edit_sent_invoice": {
        "openings": [
            "I sent invoice {invoice} with the wrong amount. How do I edit it?",
            "hi, made a typo in the client's address on an invoice I already sent. can I fix it",
            "Our client says invoice {invoice} has the wrong VAT rate. Can I just change it and resend?",
        ],
        "turns": [
            (None,
             "A sent invoice can't be edited, because invoice numbers have to stay sequential and unchanged for tax purposes. You have two options:\n\n1. Issue a credit note for the incorrect invoice under Invoices > (invoice) > More > Issue credit note, then send a new, correct invoice.\n2. If your client hasn't paid yet, void the invoice and send a replacement.\n\nMost accountants prefer the credit note route. Which one suits you?"),
            ("Voiding sounds easier. Will the client get an email?",
             "Yes. When you void an invoice, Tallyfold emails your client that it's been cancelled, and any automatic reminders for it stop. You can then duplicate the voided invoice from More > Duplicate, correct it, and send it; it will get the next invoice number."),
            ("Does the old number just disappear?",
             "No, the voided invoice keeps its number and stays in your list marked as void. That's intentional: gaps in the numbering would raise questions in an audit, while a voided invoice is a normal, documented record."),
            ("And it syncs to {accounting} correctly?",
             "Yes. The void and the new invoice both sync to {accounting} at the next hourly sync, or right away if you use Sync now under Settings > Integrations. The voided invoice appears there as voided, not deleted."),
            ("Perfect. One more thing, can I change my default payment terms so this doesn't happen again?",
             "You can set default payment terms under Settings > Branding, and they apply to every new invoice. For clients with different terms, set them on the client under Clients > (client), which overrides the default."),
            ("Great, thanks Juniper.",
             "You're welcome, {name}. Once the replacement invoice is sent, it's worth checking it in the preview before sending the next ones."),
        ],
    },
    "annual_refund": {
        "openings": [
            "I'd like a refund for my annual {plan} plan, we're closing the business.",
            "Hello, we renewed the annual subscription by mistake. Can we get our money back?",
            "How do refunds work if I cancel the yearly plan halfway through?",
        ],
        "turns": [
            (None,
             "I can explain how it works, {name}. Annual plans are refunded in full within 30 days of the start of the term. After 30 days, the unused full months are refunded pro rata, minus a 20 {currency} administration fee. Refunds are handled by a support agent and can only be requested by the account owner. Do you know roughly when the current annual term started?"),
            ("It renewed on the {day} of last month.",
             "Then you're within the 30-day window, so a full refund applies. Are you the account owner? If so, I'll pass this to an agent who can process it. They'll need the email address of the account."),
            ("Yes I'm the owner. {email}",
             "Thank you. I'm handing this to a support agent now. On weekdays between 08:00 and 20:00 CET you'll hear back in under 2 hours, otherwise by the next business morning.\n\n[ESCALATE] Account owner requests a full refund of an annual {plan} plan within 30 days of renewal."),
            ("Will my invoices be deleted when the account is closed?",
             "No. Invoices and payment records are kept for ten years after closure, because tax and anti-money-laundering law require it. Before closing, you can export everything as CSV and PDF, which I'd recommend for your own records."),
            ("Where is the export?",
             "The export is under Settings > Account > Export data. Choose CSV for spreadsheets and accounting, and PDF for copies of each invoice as your clients received them. Large accounts can take a few minutes; you'll get an email with the download link."),
            ("Ok. Thank you for being clear.",
             "Glad it helped. The agent will confirm the refund in this conversation; after that, you can close the account under Settings > Account > Close account once your balance has been paid out."),
        ],
    },
    "sync_failure": {
        "openings": [
            "My {accounting} sync keeps failing since yesterday.",
            "Invoices aren't showing up in {accounting} anymore. Help?",
            "The integration page says sync failed with a tax rate error, what does that mean?",
        ],
        "turns": [
            (None,
             "Let's get that sync running again. Please open Settings > Integrations > {accounting}. The page shows the reason for the last failure. What does it say?"),
            ("It says tax rate 'Reduced 10%' not found.",
             "That means one of your invoices uses a tax rate that doesn't exist in {accounting}. Open the tax mapping on the same integration page and map \"Reduced 10%\" to the matching rate in {accounting}. If there's no matching rate, create it in {accounting} first, then refresh the mapping."),
            ("I created it. Do I have to wait an hour?",
             "No, use Sync now on the integration page to run it straight away. The invoices that failed before will be retried as part of that sync."),
            ("It worked but now there are two copies of one invoice in {accounting}.",
             "That can happen if the invoice was entered in {accounting} by hand while the sync was failing. Tallyfold only creates records it hasn't synced before, so the second copy is most likely the manual one. Check which copy has the Tallyfold reference in its notes, keep that one and delete the other in {accounting}."),
            ("Found it, the manual one had no reference.",
             "Good, then delete the manual copy and you're all set. Future invoices will keep syncing every hour."),
            ("Thanks!",
             "You're welcome, {name}. If the integration disconnects again, the page will show a reconnect button; reconnecting keeps your mappings."),
        ],
    },
    "bank_change_lock": {
        "openings": [
            "I changed our bank account and now payouts are locked for 72 hours. Can you remove that?",
            "Why are my payouts on hold? I only updated the bank details.",
            "We moved banks and Tallyfold froze our payouts. We need the money Friday.",
        ],
        "turns": [
            (None,
             "I understand the timing is awkward. When the payout bank account changes, payouts are locked for 72 hours as a protection against account takeover fraud. Support can't shorten this lock; it applies to every account in the same way. Payments keep coming in normally during the lock, and the pending payouts go out as soon as it ends."),
            ("So nothing can be done? That's a terrible policy.",
             "I hear you. The lock exists because changing bank details is the first thing a fraudster does after getting into an account, and 72 hours gives the real owner time to notice. What I can do is confirm when your lock ends: it's shown at the top of Payments > Payouts."),
            ("It says it ends Thursday 16:40.",
             "Then your pending payouts will be sent on Thursday after 16:40, and card payments arrive 2 business days later for EU and UK accounts, or 3 for US accounts. If you need funds by Friday, a bank transfer payment from your client to your Tallyfold virtual account number follows the same payout schedule, so it won't arrive sooner either."),
            ("I didn't make this change by the way, my colleague did. Should I worry?",
             "It's worth checking. Please confirm with your colleague that they made the change. If there's any doubt, change your password under Profile > Security and turn on two-step verification now, and I'll pass this to an agent who can review the account's recent activity."),
            ("He confirmed it was him. OK.",
             "Good, then there's nothing more to do; the lock will lift on its own on Thursday. Two-step verification is still a good idea for everyone on the account."),
            ("Will do. Thanks.",
             "You're welcome, {name}. You'll find two-step verification under Profile > Security > Two-step verification."),
        ],
    },
    "dispute": {
        "openings": [
            "I got a chargeback for {amount} {currency} and a fee on top. What is this?",
            "A client disputed a card payment. What do I do now?",
            "There's a deduction of {amount} {currency} from my balance labelled dispute, I never refunded anything.",
        ],
        "turns": [
            (None,
             "That's a card dispute, also called a chargeback: the cardholder asked their bank to reverse the payment. The disputed amount plus a 15 {currency} dispute fee are deducted from your balance while the dispute is open. You can respond with evidence under Payments > Disputes, and you have 7 days to do it."),
            ("What evidence?",
             "Anything that shows the client agreed to pay and received what they paid for: the signed quote or contract, the invoice, proof of delivery or completed work, and emails where the client confirms the work. Upload them on the dispute's page with a short explanation in your own words."),
            ("How long until I know?",
             "After you submit the evidence, the card network decides, which takes between 30 and 75 days. If you win, the amount and the 15 {currency} fee are returned to your balance."),
            ("Can I just call my client and sort it out?",
             "You can, and it often helps. If the client agrees the charge was valid, ask them to withdraw the dispute with their bank. Keep submitting your evidence before the 7-day deadline anyway, since a withdrawal can take time to reach us."),
            ("Makes sense. Is the fee refunded if they withdraw?",
             "A withdrawn dispute counts as won, so yes, the amount and the fee come back to your balance once the card network confirms the withdrawal."),
            ("Thanks Juniper.",
             "You're welcome, {name}. Don't forget the 7-day deadline for the evidence; the dispute page shows the exact date."),
        ],
    },
    "plan_question": {
        "openings": [
            "What's the difference between Growth and Scale?",
            "We're 4 people on Starter, which plan do we need?",
            "Does the Growth plan include the API?",
        ],
        "turns": [
            (None,
             "Here are the main differences. Growth costs 39 {currency} per month and includes up to 5 users, unlimited invoices, recurring subscriptions, automatic reminders, multi-currency invoicing and accounting exports. Scale costs 99 {currency} per month and adds unlimited users, approval workflows, custom roles, the public API with 600 requests per minute, SSO, and priority support. The API is only on Scale."),
            ("If we upgrade today, do we pay the full month?",
             "No, upgrades are prorated to the day: you pay the difference for the remaining days of the current period, and the new plan applies immediately."),
            ("And annual billing?",
             "Annual billing costs ten months' price for twelve months, so you save two months. You can switch to annual from Settings > Billing at any time; the remaining value of your monthly period is credited."),
            ("Can we try Scale before committing?",
             "The 14-day free trial is for new accounts, so it isn't available for an upgrade. You can upgrade to Scale monthly and downgrade later; a downgrade applies a credit to your next bill rather than a refund."),
            ("OK we'll go with Growth for now.",
             "Sounds reasonable for a team of your size. You can upgrade under Settings > Billing > Change plan, and invite your colleagues under Settings > Team once you're on Growth."),
            ("Done, thanks.",
             "You're welcome, {name}. Automatic reminders are switched on with Growth; you can review their schedule under Settings > Reminders."),
        ],
    },
    "suspicious_login": {
        "openings": [
            "I got an email about a login from a city I've never been to.",
            "Someone sent invoices from my account that I didn't create!",
            "There's a new user on our account nobody here invited.",
        ],
        "turns": [
            (None,
             "Please act on this right away, {name}. Change your password under Profile > Security and turn on two-step verification there as well. I'm also handing this to a support agent who can review the account's activity. Could you tell me the email address of the account?"),
            ("Done, password changed. It's {email}.",
             "Thank you. Next, please check Settings > Payments > Payouts and confirm the bank account shown is yours. Changed bank details are the biggest risk in a case like this.\n\n[ESCALATE] Possible account takeover reported; customer changed the password, bank details being checked."),
            ("The bank account is still ours.",
             "That's good news. The agent will still review logins, team changes and sent invoices with you. If you see a team member you don't recognise under Settings > Team, remove them now."),
            ("Removed one. Should I tell my clients?",
             "If invoices were sent that you didn't create, it's wise to tell the clients who received them not to pay those invoices until you confirm. The agent can help you identify them."),
            ("How long until someone contacts me?",
             "Security reports are prioritised: on weekdays between 08:00 and 20:00 CET expect a reply well within 2 hours, and by the next business morning otherwise. The agent will reply here and by email."),
            ("OK. I'm worried but thanks.",
             "That's understandable. You've already done the most important steps: new password, two-step verification, bank details checked and the unknown user removed."),
        ],
    },
    "reminders": {
        "openings": [
            "How do I stop reminders going to a client who already paid by cash?",
            "My client complained they got a reminder after paying. Why?",
            "Can I change the text of the automatic reminder emails?",
        ],
        "turns": [
            (None,
             "Reminders stop as soon as an invoice is marked paid, voided, or has a pending payment. If your client paid outside Tallyfold, open the invoice and use Record payment to mark it paid, with the date and method. Reminders for it stop immediately."),
            ("Where do I change the wording?",
             "Under Settings > Reminders. You can edit the subject and text of each reminder and the schedule; by default they go out 3 days before the due date, on the due date and 7 days after."),
            ("Can I turn them off for one client only?",
             "Yes. Open Clients > (client) and switch off Automatic reminders for that client. Their invoices will then only get reminders you send by hand."),
            ("And send one manually?",
             "On the invoice, choose More > Send reminder. It uses the same wording as the automatic reminder, and you can edit the message before sending."),
            ("Great, that's what I needed.",
             "Glad to hear it. Recording offline payments promptly is the best way to keep reminders accurate."),
            ("Thanks again.",
             "You're welcome, {name}."),
        ],
    },
    "close_account": {
        "openings": [
            "How do I delete my account and all my data?",
            "I want to close my Tallyfold account.",
            "We're switching to a different invoicing tool, how do we close our account?",
        ],
        "turns": [
            (None,
             "You can close the account yourself under Settings > Account > Close account. Before that, cancel your plan under Settings > Billing and make sure your remaining balance has been paid out. One thing to know: invoices and payment records are kept for ten years after closure because tax and anti-money-laundering law require it."),
            ("So you won't delete my invoices?",
             "Not before the legal retention period ends. They aren't used for anything else during that time. I'd recommend exporting everything under Settings > Account > Export data before closing, so you keep your own copy."),
            ("Can I reopen later if I change my mind?",
             "A closed account can't be reopened. You could create a new account with the same email after 30 days, but your history wouldn't carry over, which is another reason to export first."),
            ("My balance shows {amount} {currency} pending.",
             "Then wait until that has been paid out before closing; you'll see its arrival date under Payments > Payouts. The Close account button stays disabled while a balance is pending."),
            ("OK, I'll come back next week.",
             "That works. Remember to cancel the plan first so you aren't charged for another period in the meantime."),
            ("Thanks.",
             "You're welcome, {name}, and thank you for using Tallyfold."),
        ],
    },
}

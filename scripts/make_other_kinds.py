"""Generate the "other kinds" evaluation set: a privacy policy and a condominium's house rules.

Neither kind of document is in any training data (the scorer and verifier were trained on
CUAD contracts and questions written for other documents), and the questions are asked in
everyday words, not in any category's fixed phrasing. The set measures what CiteGuard does
on documents it was not built around; nothing is fitted to it.

The texts are original (written for this project, fictional companies and places, free to
use). Layout, running headers, printed page numbers and the gold-page check are those of
``make_sample_corpus.py``; the output has the same format as the sample corpus
(``docs/`` and ``questions.jsonl``) and is deterministic for a given PyMuPDF version.

Usage: ``python scripts/make_other_kinds.py [OUTPUT_DIR]`` (default ``datasets/other-kinds``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_sample_corpus as layout  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "datasets" / "other-kinds"

POLICY_TITLE = "Brightwell Fitness Privacy Policy"
POLICY_HEADER = "Brightwell Fitness \u2014 Privacy Policy"
POLICY_INTRO = [
    "Effective date: March 1, 2025.",
    "Brightwell Health Ltd., 40 Canal Street, Northport (\u201cBrightwell\u201d, \u201cwe\u201d) "
    "operates the Brightwell Fitness mobile app and website (the \u201cService\u201d). This "
    "policy explains what personal data we collect, why we collect it, who we share it with "
    "and the choices you have.",
]
POLICY_SECTIONS: list[tuple[str, list[str]]] = [
    (
        "1. Information we collect",
        [
            "Account data: your name, email address, date of birth and password when you "
            "create an account.",
            "Activity data: the steps, heart rate and sleep data that your connected wearable "
            "sends to the app, and the workouts you record or plan.",
            "Location data: we collect precise location only while you record an outdoor "
            "workout, and only if you allow it in your device settings.",
            "Device data: your IP address, device model, operating system, app version and "
            "crash logs.",
            "Payment data: payments for Brightwell Premium are processed by our payment "
            "provider; we do not receive or store your full card number.",
        ],
    ),
    (
        "2. How we use your information",
        [
            "We use your data to run the Service, to build training plans that fit your "
            "activity, to keep the Service secure and to answer your support requests.",
            "We study how the Service is used only in aggregated form, which does not "
            "identify you.",
            "We send you marketing emails only if you have agreed to receive them, and every "
            "such email contains a link to unsubscribe.",
        ],
    ),
    (
        "3. Who we share it with",
        [
            "We do not sell your personal data.",
            "We share data with service providers that host our servers, deliver our emails "
            "and help us answer support requests. They may use it only to provide their "
            "services to us.",
            "If you join a team challenge, your display name and weekly step total are "
            "visible to other members of that team.",
            "We disclose personal data to law enforcement only when we are required to by "
            "law, such as by a court order.",
        ],
    ),
    (
        "4. Advertising and cookies",
        [
            "The app does not show third-party advertising.",
            "Our website uses essential cookies, which it needs to work, and analytics "
            "cookies, which tell us which pages are visited. You can turn off analytics "
            "cookies at any time under Cookie Settings at the bottom of any page of our "
            "website.",
        ],
    ),
    (
        "5. How long we keep it",
        [
            "We keep your account data for as long as your account is open.",
            "If you delete your account, we delete your personal data within 30 days, except "
            "records we must keep for tax purposes, which we keep for seven years.",
            "Copies in our backups are overwritten within 90 days.",
        ],
    ),
    (
        "6. Your rights",
        [
            "You may ask us for access to your personal data, to correct it, to delete it, "
            "or to send it to another service.",
            "You can download a copy of your workout history in CSV format from Settings > "
            "Privacy > Export Data.",
            "Send other requests to privacy@brightwell.example. We respond to requests within "
            "one month.",
        ],
    ),
    (
        "7. Children",
        [
            "The Service is not intended for children under 16, and we do not knowingly "
            "collect personal data from them. If we learn that a child under 16 has created "
            "an account, we will delete it.",
        ],
    ),
    (
        "8. Security",
        [
            "We encrypt your data in transit and at rest, and only staff who need it for "
            "their work can access it.",
            "We will notify you without undue delay if a breach of your personal data is "
            "likely to put your rights at high risk.",
        ],
    ),
    (
        "9. Where your data is stored",
        [
            "Our servers are located in the European Union. When a service provider "
            "processes data outside the European Union, we rely on the European "
            "Commission\u2019s standard contractual clauses.",
        ],
    ),
    (
        "10. Changes and contact",
        [
            "If we make material changes to this policy, we will notify you by email at least "
            "14 days before they take effect.",
            "Our data protection officer can be reached at dpo@brightwell.example. You also "
            "have the right to complain to your local data protection authority.",
        ],
    ),
]

RULES_TITLE = "Linden Court Condominium House Rules"
RULES_HEADER = "Linden Court Condominium \u2014 House Rules"
RULES_INTRO = [
    "Adopted by the Board of Directors of the Linden Court Condominium Association; "
    "effective June 1, 2024. These rules apply to all owners, tenants, guests and "
    "contractors at 75 Linden Avenue.",
]
RULES_SECTIONS: list[tuple[str, list[str]]] = [
    (
        "1. Quiet hours",
        [
            "Quiet hours are from 10:00 p.m. to 7:00 a.m. on weekdays and from 11:00 p.m. to "
            "9:00 a.m. on weekends and public holidays.",
            "During quiet hours, music, television and other sound must not be heard outside "
            "your unit.",
        ],
    ),
    (
        "2. Pets",
        [
            "Each unit may keep up to two dogs or cats.",
            "Dogs must be leashed in all common areas, and owners must clean up after their "
            "pets immediately. Pets are not permitted in the pool area or the fitness room.",
        ],
    ),
    (
        "3. Parking",
        [
            "Each unit is assigned one parking space in the garage.",
            "Guest parking is limited to 48 consecutive hours; vehicles left longer may be "
            "towed at the owner\u2019s expense.",
            "Boats, trailers and recreational vehicles may not be parked anywhere on the property.",
        ],
    ),
    (
        "4. Pool and fitness room",
        [
            "The pool is open from 8:00 a.m. to 9:00 p.m., May 15 through September 30.",
            "Children under 14 must be accompanied by an adult at all times in the pool area. "
            "Glass containers are not allowed in the pool area.",
            "The fitness room is open to residents from 5:00 a.m. to 11:00 p.m. every day.",
        ],
    ),
    (
        "5. Renovations",
        [
            "Residents must notify the management office in writing at least seven days "
            "before starting any renovation work.",
            "Construction noise is permitted only between 9:00 a.m. and 5:00 p.m., Monday "
            "through Saturday.",
        ],
    ),
    (
        "6. Moving in and out",
        [
            "Moves must be scheduled with the management office and may take place only "
            "between 8:00 a.m. and 6:00 p.m.",
            "A refundable elevator deposit of $250 is required for each move.",
        ],
    ),
    (
        "7. Trash and recycling",
        [
            "Trash must be bagged and placed in the chute; recycling goes to the bins in the "
            "garage, level P1.",
            "Large items such as furniture must not be left in the trash room; residents must "
            "arrange a bulk pickup through the management office.",
        ],
    ),
    (
        "8. Renting your unit",
        [
            "Units may not be rented for periods shorter than 30 days.",
            "Owners who rent their unit must give the management office a copy of the lease "
            "and the tenants\u2019 contact details before the tenancy begins.",
        ],
    ),
    (
        "9. Balconies",
        [
            "Barbecues using charcoal or open flames are prohibited on balconies; electric "
            "grills are allowed.",
            "Laundry may not be hung on balcony railings.",
        ],
    ),
    (
        "10. Violations",
        [
            "A first violation of these rules results in a written warning. Each further "
            "violation of the same rule within twelve months results in a fine of $100.",
        ],
    ),
]

QUESTIONS: list[dict[str, object]] = [
    # The privacy policy: answerable.
    {
        "id": "policy-sell-data",
        "question": "Do they sell my data?",
        "doc": "privacy_policy.pdf",
        "answerable": True,
        "gold_spans": ["We do not sell your personal data."],
        "reference_answer": "No: the policy says they do not sell your personal data.",
    },
    {
        "id": "policy-retention-after-deletion",
        "question": "How long do they keep my information after I delete my account?",
        "doc": "privacy_policy.pdf",
        "answerable": True,
        "gold_spans": ["If you delete your account, we delete your personal data within 30 days"],
        "reference_answer": "It is deleted within 30 days; tax records are kept for seven years.",
    },
    {
        "id": "policy-location",
        "question": "Does the app track my location all the time?",
        "doc": "privacy_policy.pdf",
        "answerable": True,
        "gold_spans": ["we collect precise location only while you record an outdoor workout"],
        "reference_answer": "No: only while you record an outdoor workout, and only if allowed.",
    },
    {
        "id": "policy-children",
        "question": "Can kids use this app?",
        "doc": "privacy_policy.pdf",
        "answerable": True,
        "gold_spans": ["The Service is not intended for children under 16"],
        "reference_answer": "It is not intended for children under 16.",
    },
    {
        "id": "policy-export",
        "question": "How do I get a copy of my workout data?",
        "doc": "privacy_policy.pdf",
        "answerable": True,
        "gold_spans": ["You can download a copy of your workout history in CSV format"],
        "reference_answer": "Download it as CSV from Settings > Privacy > Export Data.",
    },
    {
        "id": "policy-changes",
        "question": "Will I be told if the policy changes?",
        "doc": "privacy_policy.pdf",
        "answerable": True,
        "gold_spans": ["we will notify you by email at least 14 days before they take effect"],
        "reference_answer": "Yes, by email at least 14 days before material changes.",
    },
    {
        "id": "policy-step-count",
        "question": "Who can see my step count?",
        "doc": "privacy_policy.pdf",
        "answerable": True,
        "gold_spans": [
            "your display name and weekly step total are visible to other members of that team"
        ],
        "reference_answer": "Other members of a team challenge you join see your weekly total.",
    },
    {
        "id": "policy-storage-location",
        "question": "Where is my data stored?",
        "doc": "privacy_policy.pdf",
        "answerable": True,
        "gold_spans": ["Our servers are located in the European Union."],
        "reference_answer": "On servers in the European Union.",
    },
    {
        "id": "policy-card-number",
        "question": "Do they keep my credit card number?",
        "doc": "privacy_policy.pdf",
        "answerable": True,
        "gold_spans": ["we do not receive or store your full card number"],
        "reference_answer": "No; the payment provider processes payments.",
    },
    {
        "id": "policy-police",
        "question": "Will they give my data to the police?",
        "doc": "privacy_policy.pdf",
        "answerable": True,
        "gold_spans": [
            "We disclose personal data to law enforcement only when we are required to by law"
        ],
        "reference_answer": "Only when required by law, such as by a court order.",
    },
    # The privacy policy: not answered by it.
    {
        "id": "policy-premium-price",
        "question": "How much does Brightwell Premium cost?",
        "doc": "privacy_policy.pdf",
        "answerable": False,
        "gold_spans": [],
        "reference_answer": "",
    },
    {
        "id": "policy-paypal",
        "question": "Can I pay with PayPal?",
        "doc": "privacy_policy.pdf",
        "answerable": False,
        "gold_spans": [],
        "reference_answer": "",
    },
    {
        "id": "policy-request-fee",
        "question": "Is there a fee to request a copy of my data?",
        "doc": "privacy_policy.pdf",
        "answerable": False,
        "gold_spans": [],
        "reference_answer": "",
    },
    # The house rules: answerable.
    {
        "id": "rules-weekend-noise",
        "question": "Until what time can I make noise on a Saturday night?",
        "doc": "house_rules.pdf",
        "answerable": True,
        "gold_spans": ["from 11:00 p.m. to 9:00 a.m. on weekends and public holidays"],
        "reference_answer": "Until 11:00 p.m.; quiet hours on weekends run 11 p.m. to 9 a.m.",
    },
    {
        "id": "rules-pet-count",
        "question": "How many pets am I allowed to have?",
        "doc": "house_rules.pdf",
        "answerable": True,
        "gold_spans": ["Each unit may keep up to two dogs or cats."],
        "reference_answer": "Up to two dogs or cats per unit.",
    },
    {
        "id": "rules-guest-parking",
        "question": "Can my guest park overnight?",
        "doc": "house_rules.pdf",
        "answerable": True,
        "gold_spans": ["Guest parking is limited to 48 consecutive hours"],
        "reference_answer": "Yes, guest parking is allowed for up to 48 consecutive hours.",
    },
    {
        "id": "rules-balcony-grill",
        "question": "Can I grill on my balcony?",
        "doc": "house_rules.pdf",
        "answerable": True,
        "gold_spans": [
            "Barbecues using charcoal or open flames are prohibited on balconies; "
            "electric grills are allowed."
        ],
        "reference_answer": "Only with an electric grill; charcoal and open flames are prohibited.",
    },
    {
        "id": "rules-short-rental",
        "question": "Can I rent my place on Airbnb for a weekend?",
        "doc": "house_rules.pdf",
        "answerable": True,
        "gold_spans": ["Units may not be rented for periods shorter than 30 days."],
        "reference_answer": "No: rentals shorter than 30 days are not allowed.",
    },
    {
        "id": "rules-repeat-violation",
        "question": "What happens if I break a rule twice?",
        "doc": "house_rules.pdf",
        "answerable": True,
        "gold_spans": [
            "Each further violation of the same rule within twelve months results in a "
            "fine of $100."
        ],
        "reference_answer": "A $100 fine for a repeat of the same rule within twelve months.",
    },
    {
        "id": "rules-renovation-notice",
        "question": "How much notice do I need to give before redoing my kitchen?",
        "doc": "house_rules.pdf",
        "answerable": True,
        "gold_spans": [
            "Residents must notify the management office in writing at least seven days "
            "before starting any renovation work."
        ],
        "reference_answer": "Written notice at least seven days before the work starts.",
    },
    {
        "id": "rules-move-deposit",
        "question": "Is there a deposit for moving in?",
        "doc": "house_rules.pdf",
        "answerable": True,
        "gold_spans": ["A refundable elevator deposit of $250 is required for each move."],
        "reference_answer": "Yes, a refundable $250 elevator deposit for each move.",
    },
    {
        "id": "rules-pool-hours",
        "question": "When is the pool open?",
        "doc": "house_rules.pdf",
        "answerable": True,
        "gold_spans": [
            "The pool is open from 8:00 a.m. to 9:00 p.m., May 15 through September 30."
        ],
        "reference_answer": "8 a.m. to 9 p.m., May 15 through September 30.",
    },
    # The house rules: not answered by them.
    {
        "id": "rules-monthly-fees",
        "question": "How much are the monthly condo fees?",
        "doc": "house_rules.pdf",
        "answerable": False,
        "gold_spans": [],
        "reference_answer": "",
    },
    {
        "id": "rules-satellite-dish",
        "question": "Can I put a satellite dish on my balcony?",
        "doc": "house_rules.pdf",
        "answerable": False,
        "gold_spans": [],
        "reference_answer": "",
    },
    {
        "id": "rules-smoking",
        "question": "Is smoking allowed inside the units?",
        "doc": "house_rules.pdf",
        "answerable": False,
        "gold_spans": [],
        "reference_answer": "",
    },
]


def main(out_dir: Path = DEFAULT_OUT) -> None:
    docs = {
        "privacy_policy.pdf": layout.build_titled_document(
            POLICY_TITLE, POLICY_INTRO, POLICY_SECTIONS, POLICY_HEADER
        ),
        "house_rules.pdf": layout.build_titled_document(
            RULES_TITLE, RULES_INTRO, RULES_SECTIONS, RULES_HEADER
        ),
    }
    titles = {"privacy_policy.pdf": POLICY_TITLE, "house_rules.pdf": RULES_TITLE}
    layout.write_dataset(out_dir, docs, titles, QUESTIONS)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT)

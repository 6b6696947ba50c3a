"""Generate the "handbook and warranty" evaluation set: an employee handbook and a store's
warranty and returns policy.

A second held-out set beside ``make_other_kinds.py``, written after every threshold and rule
of the default was fixed, so that nothing in the code has seen it: neither kind of document
is in any training data (the scorer and verifier were trained on CUAD contracts and on
questions written for other documents), and the questions are asked in everyday words
("Do I need a doctor's note if I'm off sick for two days?", "Is it still under warranty if
my cousin fixed it?"). Each unanswerable question is about something near a topic the
document covers. Nothing is fitted to this set; it is measured, not tuned on.

The texts are original (written for this project, fictional companies and places, free to
use). Layout and the gold-page check are those of ``make_sample_corpus.py``; the output has
the same format as the sample corpus and is deterministic for a given PyMuPDF version.

Usage: ``python scripts/make_handbook_warranty.py [OUTPUT_DIR]`` (default
``datasets/handbook-warranty``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_sample_corpus as layout  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "datasets" / "handbook-warranty"

HANDBOOK_TITLE = "Northfield Logistics Employee Handbook"
HANDBOOK_HEADER = "Northfield Logistics \u2014 Employee Handbook"
HANDBOOK_INTRO = [
    "Edition of January 2025. This handbook applies to all employees of Northfield Logistics "
    "Inc. (\u201cthe Company\u201d) in its offices and warehouses. It summarizes the "
    "Company\u2019s policies; your employment contract prevails where it says otherwise.",
]
HANDBOOK_SECTIONS: list[tuple[str, list[str]]] = [
    (
        "1. Starting with us",
        [
            "New employees serve a probationary period of three months, during which either "
            "side may end the employment with one week\u2019s notice.",
            "On your first day, bring a photo ID and your bank details so that payroll can be "
            "set up.",
        ],
    ),
    (
        "2. Working hours and pay",
        [
            "Standard office hours are 8:30 a.m. to 5:00 p.m., Monday to Friday, with a "
            "one-hour unpaid lunch break. Warehouse shifts are set by the shift roster.",
            "With your manager\u2019s agreement, you may start work at any time between "
            "7:00 a.m. and 10:00 a.m.",
            "Salaries are paid on the last working day of each month by direct deposit.",
        ],
    ),
    (
        "3. Overtime",
        [
            "Overtime must be approved in advance by your manager.",
            "Hourly employees are paid 1.5 times their regular rate for hours worked beyond "
            "40 in a week.",
            "Salaried employees do not receive overtime pay; they may instead take the extra "
            "hours as time off within the following two months.",
        ],
    ),
    (
        "4. Vacation",
        [
            "Full-time employees earn 20 days of paid vacation per calendar year, accrued "
            "monthly. Part-time employees earn vacation in proportion to their hours.",
            "Up to five unused vacation days may be carried over into the next year; any "
            "other unused days are forfeited on December 31.",
            "Vacation requests must be submitted through the HR portal at least two weeks "
            "in advance.",
        ],
    ),
    (
        "5. Sick leave",
        [
            "Employees receive ten paid sick days per calendar year.",
            "If you are ill, tell your manager before 9:30 a.m. on the first day of absence.",
            "A doctor\u2019s note is required only for absences of more than three consecutive "
            "working days.",
        ],
    ),
    (
        "6. Parental leave",
        [
            "Employees with at least six months of service are entitled to 16 weeks of "
            "parental leave at full pay, to be taken within twelve months of the birth or "
            "adoption of a child.",
            "Please tell HR of your planned leave at least eight weeks before it begins.",
        ],
    ),
    (
        "7. Working from home",
        [
            "Employees in office roles may work from home up to two days per week with "
            "their manager\u2019s approval.",
            "Working from outside the country requires written approval from HR and is "
            "limited to 30 days per calendar year.",
            "Employees who work from home at least one day a week receive an internet "
            "allowance of $40 per month.",
        ],
    ),
    (
        "8. Travel and expenses",
        [
            "Business travel must be booked through the Company travel portal. Flights "
            "shorter than six hours are booked in economy class.",
            "Meals during business travel are reimbursed up to $60 per day, against itemized "
            "receipts.",
            "Expense claims must be submitted within 30 days of the expense; later claims "
            "are not reimbursed.",
        ],
    ),
    (
        "9. Equipment",
        [
            "The Company provides a laptop and a mobile phone to employees whose role "
            "requires them. Limited personal use is permitted.",
            "Lost or stolen equipment must be reported to the IT service desk within 24 hours.",
            "Equipment must be returned on your last working day.",
        ],
    ),
    (
        "10. Respect at work",
        [
            "Harassment and discrimination of any kind are not tolerated.",
            "You can report harassment to your manager, to HR, or anonymously through the "
            "ethics hotline at 1-800-555-0199.",
            "Retaliation against anyone who reports a concern in good faith is prohibited.",
        ],
    ),
    (
        "11. Leaving the Company",
        [
            "After probation, employees who resign must give at least four weeks\u2019 "
            "written notice.",
            "Vacation days earned but not taken in the year you leave are paid out with your "
            "final salary.",
        ],
    ),
]

WARRANTY_TITLE = "Harbor Home Appliances Warranty and Returns Policy"
WARRANTY_HEADER = "Harbor Home Appliances \u2014 Warranty and Returns"
WARRANTY_INTRO = [
    "Effective April 1, 2025. This policy applies to purchases from Harbor Home Appliances "
    "stores and harborhome.example (\u201cHarbor\u201d, \u201cwe\u201d). It does not limit the "
    "rights you have under consumer law.",
]
WARRANTY_SECTIONS: list[tuple[str, list[str]]] = [
    (
        "1. Returns",
        [
            "Most items can be returned within 30 days of delivery for a full refund if they "
            "are unused and in their original packaging.",
            "Small appliances that have been opened or used may be returned within 30 days, "
            "subject to a restocking fee of 15% of the price.",
            "Mattresses, made-to-order items and gift cards cannot be returned.",
            "Refunds are paid to the original payment method within 10 business days after "
            "we receive the returned item.",
        ],
    ),
    (
        "2. Return shipping",
        [
            "Return shipping is free for items that arrived damaged or defective.",
            "For any other return, the cost of return shipping is deducted from your refund.",
        ],
    ),
    (
        "3. Damage on delivery",
        [
            "Please inspect your order when it arrives. Damage visible on delivery must be "
            "reported within 48 hours, with photos, to qualify for a free replacement.",
        ],
    ),
    (
        "4. Warranty",
        [
            "Every major appliance carries a one-year limited warranty covering parts and "
            "labor from the date of delivery.",
            "The sealed compressor of refrigerators and freezers is covered for five years, "
            "parts only.",
        ],
    ),
    (
        "5. What the warranty does not cover",
        [
            "The warranty does not cover cosmetic damage such as scratches and dents, damage "
            "caused by misuse or improper installation, or appliances used for commercial "
            "purposes.",
            "Repairs carried out by anyone other than an authorized technician void the warranty.",
        ],
    ),
    (
        "6. Harbor Care extended protection",
        [
            "Harbor Care extends the warranty to three or five years from delivery in total.",
            "It can be bought in store or online within 60 days of delivery.",
        ],
    ),
    (
        "7. Making a claim",
        [
            "To make a warranty claim, call 1-888-555-0142 or use the claim form on our "
            "website, with your order number and the appliance\u2019s serial number.",
            "A technician visit is normally scheduled within five business days of your claim.",
        ],
    ),
    (
        "8. Installation",
        [
            "Installation by our technicians is guaranteed for 90 days: if a leak or fault is "
            "caused by our installation, we repair it and any resulting damage free of charge.",
        ],
    ),
    (
        "9. Price match",
        [
            "If a local store advertises the same item for less within 14 days of your "
            "purchase, we refund the difference. Online marketplaces and clearance sales are "
            "excluded.",
        ],
    ),
]


def _question(
    qid: str, question: str, doc: str, spans: list[str], reference: str
) -> dict[str, object]:
    return {
        "id": qid,
        "question": question,
        "doc": doc,
        "answerable": bool(spans),
        "gold_spans": spans,
        "reference_answer": reference,
    }


HANDBOOK = "employee_handbook.pdf"
WARRANTY = "warranty_returns.pdf"

QUESTIONS: list[dict[str, object]] = [
    # The handbook: answerable.
    _question(
        "handbook-vacation-days",
        "How many vacation days do I get?",
        HANDBOOK,
        ["Full-time employees earn 20 days of paid vacation per calendar year"],
        "20 paid days a year for full-time employees.",
    ),
    _question(
        "handbook-carry-over",
        "Can I keep the vacation days I didn't use for next year?",
        HANDBOOK,
        ["Up to five unused vacation days may be carried over into the next year"],
        "Up to five days; the rest are forfeited on December 31.",
    ),
    _question(
        "handbook-doctor-note",
        "Do I need a doctor's note if I'm off sick for two days?",
        HANDBOOK,
        [
            "A doctor\u2019s note is required only for absences of more than three "
            "consecutive working days."
        ],
        "No: only for more than three consecutive working days.",
    ),
    _question(
        "handbook-parental-leave",
        "How long is parental leave?",
        HANDBOOK,
        ["16 weeks of parental leave at full pay"],
        "16 weeks at full pay, after six months of service.",
    ),
    _question(
        "handbook-home-days",
        "Can I work from home on Fridays?",
        HANDBOOK,
        ["may work from home up to two days per week with their manager\u2019s approval"],
        "Yes, up to two days a week with the manager's approval.",
    ),
    _question(
        "handbook-abroad",
        "Am I allowed to work from another country for a while?",
        HANDBOOK,
        ["Working from outside the country requires written approval from HR"],
        "With written HR approval, up to 30 days a year.",
    ),
    _question(
        "handbook-meals",
        "How much can I spend on food on a business trip?",
        HANDBOOK,
        ["Meals during business travel are reimbursed up to $60 per day"],
        "Up to $60 a day, with itemized receipts.",
    ),
    _question(
        "handbook-expense-deadline",
        "What's the deadline for handing in my expenses?",
        HANDBOOK,
        ["Expense claims must be submitted within 30 days of the expense"],
        "Within 30 days of the expense.",
    ),
    _question(
        "handbook-quit-notice",
        "How much notice do I have to give if I quit?",
        HANDBOOK,
        ["employees who resign must give at least four weeks\u2019 written notice"],
        "At least four weeks in writing after probation; one week during probation.",
    ),
    _question(
        "handbook-harassment",
        "Who can I tell if a coworker harasses me?",
        HANDBOOK,
        ["You can report harassment to your manager, to HR, or anonymously"],
        "Your manager, HR, or the anonymous ethics hotline.",
    ),
    _question(
        "handbook-payday",
        "When do I get paid?",
        HANDBOOK,
        ["Salaries are paid on the last working day of each month"],
        "On the last working day of each month.",
    ),
    _question(
        "handbook-working-late",
        "Do I get paid extra for staying late?",
        HANDBOOK,
        ["Hourly employees are paid 1.5 times their regular rate"],
        "Hourly staff get 1.5 times the rate beyond 40 hours; salaried staff get time off.",
    ),
    _question(
        "handbook-stolen-laptop",
        "What should I do if my work laptop gets stolen?",
        HANDBOOK,
        ["Lost or stolen equipment must be reported to the IT service desk within 24"],
        "Report it to the IT service desk within 24 hours.",
    ),
    # The handbook: not answered by it.
    _question("handbook-bonus", "Do we get a bonus at the end of the year?", HANDBOOK, [], ""),
    _question("handbook-dog", "Can I bring my dog to the office?", HANDBOOK, [], ""),
    _question(
        "handbook-mileage",
        "How much do I get per mile if I drive my own car for work?",
        HANDBOOK,
        [],
        "",
    ),
    _question(
        "handbook-retirement-match",
        "Does the company match my retirement savings?",
        HANDBOOK,
        [],
        "",
    ),
    # The warranty and returns policy: answerable.
    _question(
        "warranty-return-window",
        "How long do I have to send something back?",
        WARRANTY,
        ["Most items can be returned within 30 days of delivery"],
        "30 days from delivery, unused and in the original packaging.",
    ),
    _question(
        "warranty-mattress",
        "Can I return a mattress?",
        WARRANTY,
        ["Mattresses, made-to-order items and gift cards cannot be returned."],
        "No, mattresses cannot be returned.",
    ),
    _question(
        "warranty-opened-blender",
        "Will I be charged if I return a blender I already opened?",
        WARRANTY,
        ["subject to a restocking fee of 15% of the price"],
        "Yes, a 15% restocking fee.",
    ),
    _question(
        "warranty-return-shipping",
        "Who pays for shipping when I send something back?",
        WARRANTY,
        ["Return shipping is free for items that arrived damaged or defective."],
        "Free for damaged or defective items; otherwise deducted from the refund.",
    ),
    _question(
        "warranty-refund-time",
        "How long until I get my money back?",
        WARRANTY,
        ["Refunds are paid to the original payment method within 10 business days"],
        "Within 10 business days after the item is received.",
    ),
    _question(
        "warranty-dent-on-delivery",
        "My fridge arrived with a dent. What do I do?",
        WARRANTY,
        ["Damage visible on delivery must be reported within 48 hours, with photos"],
        "Report it within 48 hours with photos for a free replacement.",
    ),
    _question(
        "warranty-compressor",
        "How long is the fridge compressor covered?",
        WARRANTY,
        ["The sealed compressor of refrigerators and freezers is covered for five years"],
        "Five years, parts only.",
    ),
    _question(
        "warranty-cousin-repair",
        "Is it still under warranty if my cousin fixed it?",
        WARRANTY,
        ["Repairs carried out by anyone other than an authorized technician void the warranty."],
        "No: repairs by anyone but an authorized technician void the warranty.",
    ),
    _question(
        "warranty-scratches",
        "Does the warranty cover scratches?",
        WARRANTY,
        ["The warranty does not cover cosmetic damage such as scratches and dents"],
        "No, cosmetic damage is not covered.",
    ),
    _question(
        "warranty-late-protection",
        "Can I still buy the extended protection a month after delivery?",
        WARRANTY,
        ["It can be bought in store or online within 60 days of delivery."],
        "Yes, within 60 days of delivery.",
    ),
    _question(
        "warranty-claim",
        "How do I make a warranty claim?",
        WARRANTY,
        ["To make a warranty claim, call 1-888-555-0142 or use the claim form"],
        "Call or use the website's claim form with the order and serial numbers.",
    ),
    _question(
        "warranty-price-match",
        "If I find it cheaper somewhere else, will you match the price?",
        WARRANTY,
        ["If a local store advertises the same item for less within 14 days"],
        "Yes, a local store's lower price within 14 days; not online marketplaces.",
    ),
    _question(
        "warranty-installation-leak",
        "Who pays if my dishwasher leaks because your installer hooked it up wrong?",
        WARRANTY,
        ["if a leak or fault is caused by our installation, we repair it"],
        "Harbor repairs it free of charge within 90 days of installation.",
    ),
    # The warranty and returns policy: not answered by it.
    _question("warranty-care-price", "How much does Harbor Care cost?", WARRANTY, [], ""),
    _question("warranty-haul-away", "Will you take away my old washing machine?", WARRANTY, [], ""),
    _question("warranty-installments", "Can I pay in monthly installments?", WARRANTY, [], ""),
    _question("warranty-sunday-delivery", "Do you deliver on Sundays?", WARRANTY, [], ""),
]


def main(out_dir: Path = DEFAULT_OUT) -> None:
    docs = {
        HANDBOOK: layout.build_titled_document(
            HANDBOOK_TITLE, HANDBOOK_INTRO, HANDBOOK_SECTIONS, HANDBOOK_HEADER
        ),
        WARRANTY: layout.build_titled_document(
            WARRANTY_TITLE, WARRANTY_INTRO, WARRANTY_SECTIONS, WARRANTY_HEADER
        ),
    }
    titles = {HANDBOOK: HANDBOOK_TITLE, WARRANTY: WARRANTY_TITLE}
    layout.write_dataset(out_dir, docs, titles, QUESTIONS)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT)

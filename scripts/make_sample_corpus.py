"""Generate CiteGuard's bundled sample corpus: two PDFs and a question set.

The texts are original (written for this project, fictional parties and places). They are
laid out with PyMuPDF's Story API, then running headers and printed page numbers are drawn
on every page, and PDF page labels are set to match the printed numbers:

* ``lease.pdf`` -- a residential lease, footers "Page 1 of N";
* ``tenant_guide.pdf`` -- a tenant-rights guide with a cover and a contents page numbered
  i, ii, then body pages numbered 1, 2, ...

``questions.jsonl`` is written from the question list below; each question's ``gold_pages``
(1-based physical page numbers, as in the CUAD dev set) are found by locating its gold span
in the rendered pages, and the script fails if a span is missing or lands on two pages.

Output is deterministic: same bytes on every run with the same PyMuPDF version.

Usage: ``python scripts/make_sample_corpus.py [OUTPUT_DIR]`` (default: the package folder
``src/citeguard/sample_corpus``).
"""

from __future__ import annotations

import html
import io
import json
import re
import sys
import unicodedata
from pathlib import Path

import pymupdf

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src" / "citeguard" / "sample_corpus"

PAGE = pymupdf.paper_rect("letter")
MARGIN_X = 72
BODY_TOP = 84
BODY_BOTTOM = PAGE.height - 78
HEADER_Y = 48
FOOTER_Y = PAGE.height - 44
FIXED_DATE = "D:20250101000000Z"

CSS = """
* { font-family: sans-serif; }
body { font-size: 11.5pt; line-height: 1.45; }
h1 { font-size: 17pt; text-align: center; margin-bottom: 10pt; }
h2 { font-size: 12.5pt; margin-top: 12pt; margin-bottom: 4pt; }
p { margin-top: 0; margin-bottom: 7pt; text-align: justify; }
p.center { text-align: center; }
"""

LEASE_HEADER = "Residential Lease Agreement \u2014 14 Elm Street"
GUIDE_HEADER = "Millbrook Tenant Guide \u2014 Deposits, Repairs and Eviction"

LEASE_TITLE = "Residential Lease Agreement"
LEASE_INTRO = [
    "This Residential Lease Agreement (the \u201cLease\u201d) is made on February 10, 2025, "
    "between Harbor Lane Properties LLC, a company with its office at 220 Quarry Road, "
    "Millbrook (the \u201cLandlord\u201d), and Daniel Reyes and Priya Natarajan (together, "
    "the \u201cTenant\u201d). The Landlord and the Tenant agree as follows.",
]
LEASE_SECTIONS: list[tuple[str, list[str]]] = [
    (
        "1. Parties and Premises",
        [
            "The Landlord leases to the Tenant the residential apartment known as "
            "Apartment 3B, 14 Elm Street, Millbrook (the \u201cPremises\u201d), together with "
            "the use of parking space number 7 in the rear lot and one storage locker in the "
            "basement. The Premises are leased unfurnished, except for the refrigerator, "
            "stove and dishwasher already installed.",
            "Each person signing as Tenant is jointly and severally responsible for all "
            "obligations under this Lease. Only the persons named above and their minor "
            "children may live in the Premises. A guest may not stay more than fourteen "
            "nights in any six-month period without the Landlord's written approval.",
            "The Landlord's property manager is Margaret Osei. Notices to the Landlord must "
            "be delivered in writing to the office address above or by email to the "
            "address given in the move-in letter.",
        ],
    ),
    (
        "2. Term",
        [
            "The term of this Lease begins on March 1, 2025 and ends on February 28, 2026 "
            "(the \u201cTerm\u201d). The Tenant may move in on the first day of the Term "
            "after paying the first month's rent and the security deposit in full.",
            "If the Landlord cannot deliver possession on the first day of the Term because "
            "a previous occupant has not left, rent will be reduced day by day until "
            "possession is delivered, and the Tenant may cancel this Lease if possession is "
            "not delivered within ten days.",
        ],
    ),
    (
        "3. Rent",
        [
            "The monthly rent is $1,450.00, payable in advance on or before the first day "
            "of each calendar month. Rent may be paid by bank transfer to the account named "
            "in the move-in letter or by check delivered to the Landlord's office. Cash is "
            "not accepted.",
            "If the Term begins on a day other than the first day of a month, the rent for "
            "the first month will be prorated on a daily basis. Any payment returned unpaid "
            "by the Tenant's bank will be charged a returned payment fee of $35.00.",
        ],
    ),
    (
        "4. Late Charges",
        [
            "Rent that has not been received by the end of the fifth day of the month is "
            "late. For any late payment, the Tenant will pay a late fee of $75.00. The late "
            "fee is charged once for each late month and does not grow with the number of "
            "days late.",
            "Accepting a late payment or a late fee does not waive the Landlord's right to "
            "require payment on time in later months or any other right under this Lease.",
        ],
    ),
    (
        "5. Security Deposit",
        [
            "On signing this Lease, the Tenant will pay a security deposit of $2,175.00. "
            "The Landlord will hold the deposit in a separate account at a bank in the "
            "state and will not use it to pay ordinary operating costs.",
            "The Landlord may deduct from the deposit only unpaid rent, the reasonable cost "
            "of repairing damage beyond normal wear and tear, and the reasonable cost of "
            "cleaning the Premises if they are left less clean than at move-in. The deposit "
            "may not be used by the Tenant as the last month's rent.",
            "The Landlord will return the security deposit, less any lawful deductions, "
            "within 21 days after the Tenant moves out and returns all keys. Any deduction "
            "will be listed in an itemized statement sent with the balance to the "
            "forwarding address the Tenant provides in writing.",
        ],
    ),
    (
        "6. Utilities and Services",
        [
            "The Tenant pays for electricity, gas for cooking, internet and any cable or "
            "streaming services. The Landlord pays for water, sewer, trash collection and "
            "snow removal from the walkways and the parking lot.",
            "The Tenant will keep the electricity account in the Tenant's name for the whole "
            "Term and will not allow the heating to be switched off during the months of "
            "November through March, so that pipes do not freeze.",
        ],
    ),
    (
        "7. Use of the Premises",
        [
            "The Premises may be used only as a private residence. The Tenant will not "
            "carry on any business that brings customers to the building, will not store "
            "flammable materials other than ordinary household products, and will not "
            "disturb other residents. Quiet hours are from 10:00 p.m. to 7:00 a.m.",
            "Smoking of any substance is prohibited inside the Premises, on the balcony and "
            "in the common areas of the building.",
        ],
    ),
    (
        "8. Maintenance and Repairs",
        [
            "The Tenant will keep the Premises clean and safe, replace light bulbs and "
            "smoke detector batteries, and promptly report to the Landlord any damage, leak, "
            "defect or condition that needs repair. Repair requests must be made in writing, "
            "except in an emergency, when the Tenant should also call the emergency "
            "maintenance line.",
            "The Landlord will keep the structure, roof, plumbing, heating, electrical "
            "systems and supplied appliances in good working order. The Landlord will begin "
            "non-emergency repairs within 14 days after receiving a written request. "
            "Emergency repairs, such as a loss of heat, water or electricity or a leak that "
            "threatens the building, will be started within 24 hours.",
            "The Tenant will pay the reasonable cost of repairing damage caused by the "
            "Tenant, members of the household or guests, other than normal wear and tear. "
            "The Tenant will not paint, install fixtures, change locks or make other "
            "alterations without the Landlord's written consent.",
        ],
    ),
    (
        "9. Pets",
        [
            "No animals may be kept in the Premises without the Landlord's prior written "
            "consent. With that consent the Tenant may keep one cat or one dog weighing no "
            "more than 30 pounds. The Tenant will pay a one-time pet fee of $300.00, which "
            "is not refundable and is separate from the security deposit.",
            "The Tenant is responsible for any damage or disturbance caused by the pet. Fish "
            "in a tank of no more than 20 gallons do not require consent.",
        ],
    ),
    (
        "10. Assignment and Subletting",
        [
            "The Tenant may not sublet all or part of the Premises, assign this Lease, or "
            "rent the Premises for short stays through any booking service without the "
            "Landlord's prior written consent. The Landlord will not unreasonably withhold "
            "consent to a subtenant who meets the Landlord's usual screening standards.",
            "If the Landlord consents, the Tenant remains responsible for all obligations "
            "under this Lease during the sublease.",
        ],
    ),
    (
        "11. Landlord's Entry",
        [
            "The Landlord may enter the Premises to inspect them, make repairs, or show them "
            "to prospective tenants, buyers or lenders. Except in an emergency, the Landlord "
            "will give the Tenant at least 24 hours' written notice before entering, and "
            "will enter only between 9:00 a.m. and 6:00 p.m. on weekdays unless the Tenant "
            "agrees to another time.",
            "In an emergency that threatens persons or property, the Landlord may enter "
            "without notice and will inform the Tenant of the entry afterwards.",
        ],
    ),
    (
        "12. Termination and Renewal",
        [
            "Either party may end the tenancy at the end of the Term by giving the other "
            "party written notice at least 60 days before the last day of the Term. If "
            "neither party gives that notice, the tenancy will continue from month to month "
            "on the same terms, except that the monthly rent will be $1,500.00.",
            "During a month-to-month tenancy, either party may end the tenancy by written "
            "notice given at least 60 days before the end of a rental month.",
            "When the tenancy ends, the Tenant will leave the Premises clean and in the same "
            "condition as at move-in, except for normal wear and tear, and return all keys, "
            "parking permits and access cards to the Landlord's office.",
        ],
    ),
    (
        "13. Insurance and Liability",
        [
            "The Landlord's insurance does not cover the Tenant's belongings. The Tenant is "
            "encouraged to carry renter's insurance. The Landlord is not responsible for "
            "loss or damage to the Tenant's property unless caused by the Landlord's "
            "negligence.",
        ],
    ),
    (
        "14. General Provisions",
        [
            "This Lease is the entire agreement between the parties and may be changed only "
            "in a writing signed by both. If a court finds any part of this Lease invalid, "
            "the rest remains in effect. This Lease is governed by the laws of the state in "
            "which the Premises are located.",
            "The parties sign this Lease on the signature page that follows, which also "
            "lists the items present in the Premises at move-in.",
        ],
    ),
]

LEASE_SIGNATURE_HTML = """
<h2>Signatures</h2>
<p>Signed by the Landlord, Harbor Lane Properties LLC, by Margaret Osei, Property Manager, and by
the Tenants, Daniel Reyes and Priya Natarajan, on the date written at the top of this Lease.</p>
<table style="width:100%; margin-top:24pt">
<tr><td>Landlord: ______________________</td><td>Date: ____________</td></tr>
<tr><td>Margaret Osei, for Harbor Lane Properties LLC</td><td></td></tr>
<tr><td>&#160;</td><td></td></tr>
<tr><td>Tenant: ______________________</td><td>Date: ____________</td></tr>
<tr><td>Daniel Reyes</td><td></td></tr>
<tr><td>&#160;</td><td></td></tr>
<tr><td>Tenant: ______________________</td><td>Date: ____________</td></tr>
<tr><td>Priya Natarajan</td><td></td></tr>
</table>
<h2 style="margin-top:30pt">Addendum A: Move-in Inventory</h2>
<p>The following items are present and in working order at the start of the Term.</p>
<table style="width:100%">
<tr><td>Keys to the apartment door</td><td>2</td></tr>
<tr><td>Mailbox keys</td><td>2</td></tr>
<tr><td>Building access cards</td><td>2</td></tr>
<tr><td>Parking permit for space 7</td><td>1</td></tr>
<tr><td>Refrigerator, stove and dishwasher</td><td>1 each</td></tr>
<tr><td>Smoke detectors, with new batteries</td><td>3</td></tr>
</table>
"""

GUIDE_TITLE = "A Tenant's Guide to Deposits, Repairs and Eviction"
GUIDE_PUBLISHER = "Millbrook Tenant Resource Center"
GUIDE_SECTIONS: list[tuple[str, list[str]]] = [
    (
        "1. About This Guide",
        [
            "This guide explains, in plain language, the rules that most often matter to "
            "people who rent a home in Millbrook: getting a security deposit back, asking "
            "for repairs, protection against retaliation, and what notice a landlord must "
            "give before an eviction. It is general information, not legal advice. Your "
            "lease may give you more rights than the law requires, but it cannot take away "
            "the rights described here.",
        ],
    ),
    (
        "2. Security Deposits",
        [
            "A landlord may not ask for a security deposit of more than two months' rent. "
            "The deposit remains the tenant's money while the landlord holds it, and it must "
            "be kept separate from the landlord's own funds.",
            "After you move out, the landlord must return your deposit no later than 30 "
            "days after the tenancy ends, together with an itemized list of any deductions. "
            "A lease may set a shorter deadline, and then the shorter deadline applies.",
            "A landlord may deduct unpaid rent and the cost of repairing damage that goes "
            "beyond normal wear and tear. Faded paint, minor scuffs and worn carpet in "
            "walkways are normal wear and tear and may not be charged to you.",
            "If a landlord keeps any part of a deposit without a valid reason, or misses the "
            "deadline without sending the itemized list, the tenant may sue in small claims "
            "court for the amount withheld plus a penalty of up to twice that amount.",
            "To protect yourself, take dated photographs of every room when you move in and "
            "when you move out, and give your landlord a forwarding address in writing.",
        ],
    ),
    (
        "3. Asking for Repairs",
        [
            "Landlords must keep rental homes safe and fit to live in, including heat, hot "
            "water, working plumbing and electricity, and freedom from pests and mold "
            "caused by the building. Always ask for repairs in writing and keep a copy; an "
            "email or text message counts as writing.",
            "For an ordinary repair, the landlord should begin work within 14 days of your "
            "written request. A condition that threatens health or safety, such as no heat "
            "in winter, no running water, or a gas leak, must be addressed within 24 hours.",
            "If the landlord does not make a repair in time, you may report the problem to "
            "the city's Housing Inspection Office, which can inspect the home and order the "
            "repair. Do not stop paying rent on your own: withholding rent without following "
            "the legal procedure can lead to an eviction case for nonpayment.",
        ],
    ),
    (
        "4. Protection Against Retaliation",
        [
            "It is illegal for a landlord to punish a tenant for asserting their rights. "
            "Retaliation includes raising the rent, reducing services, refusing to renew a "
            "lease, or starting an eviction because the tenant asked for repairs, "
            "complained to a government agency, or joined a tenant organization.",
            "If a landlord takes any of these actions within six months after a tenant's "
            "complaint or repair request, the law presumes that the action is retaliation, "
            "and the landlord must prove a different, legitimate reason.",
        ],
    ),
    (
        "5. Eviction Notice Periods",
        [
            "A landlord can end a tenancy only by giving proper written notice and, if the "
            "tenant does not leave, by winning an eviction case in court. Changing the "
            "locks, removing a tenant's belongings or shutting off utilities to force a "
            "tenant out is illegal, even after a notice has expired.",
            "For unpaid rent, the landlord must give a 14-day notice to pay the rent owed or "
            "leave. If the tenant pays everything owed within those 14 days, the tenancy "
            "continues.",
            "For a lease violation other than unpaid rent, such as an unauthorized pet, the "
            "landlord must give a 30-day notice that describes the violation and gives the "
            "tenant the chance to correct it.",
            "To end a month-to-month tenancy without any fault by the tenant, the landlord "
            "must give at least 60 days' written notice. If the tenant has lived in the home "
            "for more than two years, the notice period is 90 days.",
        ],
    ),
    (
        "6. Common Questions",
        [
            "Can my landlord keep my deposit for cleaning? Only if you leave the home less "
            "clean than it was when you moved in. Routine cleaning between tenants is part "
            "of the landlord's cost of doing business.",
            "Can I be charged for repainting? Not for ordinary fading or small nail holes. "
            "Repainting may be charged only when walls are damaged, for example by large "
            "holes, crayon or smoke, and then only for the affected walls.",
            "My lease says I must give 60 days' notice before moving out. Is that allowed? "
            "Yes. A lease may require more notice from the tenant than the law does, as long "
            "as the same rule is written in the lease you signed.",
            "My landlord entered without telling me. What can I do? Write to the landlord "
            "and ask that future entries follow the notice rule in your lease. Keep a record "
            "of dates and times. Repeated entry without notice can be raised in court.",
            "Do I have to let a contractor in? If the landlord has given proper notice for a "
            "repair, you should allow reasonable access; refusing may delay the repair and "
            "can be a lease violation.",
            "What if my building is sold? The new owner takes over your lease and your "
            "deposit. Your lease continues on the same terms until it ends.",
        ],
    ),
    (
        "7. Getting Help",
        [
            "The Millbrook Tenant Resource Center offers free counseling about deposits, "
            "repairs and eviction notices. Bring your lease, any notices you have received "
            "and copies of your letters to the landlord. Walk-in hours are Tuesdays and "
            "Thursdays from 1:00 p.m. to 5:00 p.m. at the Millbrook Public Library, second "
            "floor.",
        ],
    ),
]

# Questions: gold spans are verbatim substrings of the texts above; pages are found later.
QUESTIONS: list[dict[str, object]] = [
    {
        "id": "lease-rent-amount",
        "doc": "lease.pdf",
        "question": "How much is the monthly rent and when is it due?",
        "answerable": True,
        "gold_spans": [
            "The monthly rent is $1,450.00, payable in advance on or before the first day "
            "of each calendar month."
        ],
        "reference_answer": "$1,450.00 per month, due on or before the first day of each month.",
    },
    {
        "id": "lease-late-fee",
        "doc": "lease.pdf",
        "question": "What is the late fee if rent is paid late?",
        "answerable": True,
        "gold_spans": ["For any late payment, the Tenant will pay a late fee of $75.00."],
        "reference_answer": "$75.00, charged when rent is not received by the end of the "
        "fifth day of the month.",
    },
    {
        "id": "lease-deposit-amount",
        "doc": "lease.pdf",
        "question": "How large is the security deposit?",
        "answerable": True,
        "gold_spans": ["the Tenant will pay a security deposit of $2,175.00"],
        "reference_answer": "$2,175.00.",
    },
    {
        "id": "lease-deposit-return",
        "doc": "lease.pdf",
        "question": "How soon must the landlord return the security deposit after move-out?",
        "answerable": True,
        "gold_spans": ["within 21 days after the Tenant moves out and returns all keys"],
        "reference_answer": "Within 21 days after the tenant moves out and returns all keys.",
    },
    {
        "id": "lease-pets",
        "doc": "lease.pdf",
        "question": "Can the tenant keep a dog?",
        "answerable": True,
        "gold_spans": [
            "With that consent the Tenant may keep one cat or one dog weighing no "
            "more than 30 pounds."
        ],
        "reference_answer": "Yes, one dog of no more than 30 pounds, with the landlord's prior "
        "written consent and a $300.00 pet fee.",
    },
    {
        "id": "lease-entry-notice",
        "doc": "lease.pdf",
        "question": "How much notice must the landlord give before entering the apartment?",
        "answerable": True,
        "gold_spans": [
            "the Landlord will give the Tenant at least 24 hours' written notice before entering"
        ],
        "reference_answer": "At least 24 hours' written notice, except in an emergency.",
    },
    {
        "id": "lease-termination-notice",
        "doc": "lease.pdf",
        "question": "How much notice is needed to end the lease at the end of the term?",
        "answerable": True,
        "gold_spans": ["written notice at least 60 days before the last day of the Term"],
        "reference_answer": "Written notice at least 60 days before the last day of the term.",
    },
    {
        "id": "guide-deposit-deadline",
        "doc": "tenant_guide.pdf",
        "question": "By when must a landlord return a security deposit under the guide?",
        "answerable": True,
        "gold_spans": [
            "the landlord must return your deposit no later than 30 days after the tenancy "
            "ends, together with an itemized list of any deductions"
        ],
        "reference_answer": "No later than 30 days after the tenancy ends, with an itemized "
        "list of deductions.",
    },
    {
        "id": "guide-retaliation",
        "doc": "tenant_guide.pdf",
        "question": "How long after a repair request is a landlord's rent increase presumed "
        "to be retaliation?",
        "answerable": True,
        "gold_spans": [
            "If a landlord takes any of these actions within six months after a tenant's "
            "complaint or repair request, the law presumes that the action is retaliation"
        ],
        "reference_answer": "Six months.",
    },
    {
        "id": "guide-nonpayment-notice",
        "doc": "tenant_guide.pdf",
        "question": "What notice must a landlord give before evicting for unpaid rent?",
        "answerable": True,
        "gold_spans": [
            "For unpaid rent, the landlord must give a 14-day notice to pay the rent owed or leave."
        ],
        "reference_answer": "A 14-day notice to pay the rent owed or leave.",
    },
    {
        "id": "lease-pool",
        "doc": "lease.pdf",
        "question": "Does the tenant have access to a swimming pool?",
        "answerable": False,
        "gold_spans": [],
        "reference_answer": "",
    },
    {
        "id": "lease-early-termination-fee",
        "doc": "lease.pdf",
        "question": "What fee does the tenant pay to break the lease early?",
        "answerable": False,
        "gold_spans": [],
        "reference_answer": "",
    },
    {
        "id": "guide-rent-control",
        "doc": "tenant_guide.pdf",
        "question": "By what percentage may a landlord raise the rent each year?",
        "answerable": False,
        "gold_spans": [],
        "reference_answer": "",
    },
    {
        "id": "guide-lead-paint",
        "doc": "tenant_guide.pdf",
        "question": "What must a landlord disclose about lead paint?",
        "answerable": False,
        "gold_spans": [],
        "reference_answer": "",
    },
]


def _section_html(sections: list[tuple[str, list[str]]]) -> str:
    parts = []
    for heading, paragraphs in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        parts.extend(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return "\n".join(parts)


def _render(body_html: str) -> pymupdf.Document:
    """Lay ``body_html`` out over as many pages as it needs (body area only)."""
    story = pymupdf.Story(html=f"<body>{body_html}</body>", user_css=CSS)
    buffer = io.BytesIO()
    writer = pymupdf.DocumentWriter(buffer)
    area = pymupdf.Rect(MARGIN_X, BODY_TOP, PAGE.width - MARGIN_X, BODY_BOTTOM)
    more = True
    while more:
        device = writer.begin_page(PAGE)
        more, _ = story.place(area)
        story.draw(device)
        writer.end_page()
    writer.close()
    return pymupdf.open("pdf", buffer.getvalue())


def _draw_centered(page: pymupdf.Page, y: float, text: str, size: float) -> None:
    # TextWriter maps characters by Unicode, so the em dash in the headers survives
    # (page.insert_text with a Base-14 font name turns it into another glyph).
    # Story pages leave their coordinate transform open; wrap them so ours starts clean.
    page.wrap_contents()
    font = pymupdf.Font("helv")
    width = font.text_length(text, fontsize=size)
    writer = pymupdf.TextWriter(page.rect)
    writer.append(((PAGE.width - width) / 2, y), text, font=font, fontsize=size)
    writer.write_text(page)


def _decorate(page: pymupdf.Page, header: str | None, footer: str) -> None:
    if header:
        _draw_centered(page, HEADER_Y, header, 9)
        page.draw_line((MARGIN_X, HEADER_Y + 6), (PAGE.width - MARGIN_X, HEADER_Y + 6), width=0.5)
    _draw_centered(page, FOOTER_Y, footer, 9)


def _roman(number: int) -> str:
    numerals = [(10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]
    out = ""
    for value, letters in numerals:
        while number >= value:
            out += letters
            number -= value
    return out


def build_lease() -> pymupdf.Document:
    body = (
        f"<h1>{html.escape(LEASE_TITLE)}</h1>"
        + "".join(f"<p>{html.escape(p)}</p>" for p in LEASE_INTRO)
        + _section_html(LEASE_SECTIONS)
    )
    doc = _render(body)
    signature = _render(LEASE_SIGNATURE_HTML)
    if signature.page_count != 1:
        raise RuntimeError("the lease's signature page must fit on one page")
    doc.insert_pdf(signature)
    total = doc.page_count
    for index in range(total):
        _decorate(doc[index], LEASE_HEADER, f"Page {index + 1} of {total}")
    doc.set_page_labels([{"startpage": 0, "prefix": "", "style": "D", "firstpagenum": 1}])
    return doc


def _heading_pages(doc: pymupdf.Document, headings: list[str]) -> dict[str, int]:
    """0-based page index of each heading in a rendered body."""
    found: dict[str, int] = {}
    for heading in headings:
        for index in range(doc.page_count):
            if heading in doc[index].get_text():
                found[heading] = index
                break
        else:
            raise RuntimeError(f"heading {heading!r} not found in the rendered guide")
    return found


def build_guide() -> pymupdf.Document:
    body = _render(_section_html(GUIDE_SECTIONS))
    headings = [heading for heading, _ in GUIDE_SECTIONS]
    pages = _heading_pages(body, headings)
    cover = _render(
        f'<h1 style="margin-top:180pt">{html.escape(GUIDE_TITLE)}</h1>'
        + f'<p class="center">{html.escape(GUIDE_PUBLISHER)}</p>'
        + '<p class="center">Second edition, 2025</p>'
        + '<p class="center" style="margin-top:120pt">'
        + "Free to copy and share for non-commercial use.</p>"
    )
    contents_rows = "".join(
        f"<tr><td>{html.escape(h)}</td><td>{pages[h] + 1}</td></tr>" for h in headings
    )
    contents = _render(
        f"<h1>Contents</h1><table style='width:100%'>{contents_rows}</table>"
        "<p style='margin-top:18pt'>Page numbers refer to the numbers printed at the foot of each "
        "page.</p>"
    )
    if cover.page_count != 1 or contents.page_count != 1:
        raise RuntimeError("the guide's cover and contents must fit on one page each")
    doc = pymupdf.open()
    for part in (cover, contents, body):
        doc.insert_pdf(part)
    front = 2
    for index in range(doc.page_count):
        page = doc[index]
        if index < front:
            _decorate(page, None if index == 0 else GUIDE_HEADER, _roman(index + 1))
        else:
            _decorate(page, GUIDE_HEADER, str(index - front + 1))
    doc.set_page_labels(
        [
            {"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
            {"startpage": front, "prefix": "", "style": "D", "firstpagenum": 1},
        ]
    )
    return doc


def build_titled_document(
    title: str, intro: list[str], sections: list[tuple[str, list[str]]], header: str
) -> pymupdf.Document:
    """A document of a title, intro paragraphs and numbered sections, every page under
    ``header`` and numbered "Page i of n" (the written evaluation sets' layout)."""
    body = (
        f"<h1>{html.escape(title)}</h1>"
        + "".join(f"<p>{html.escape(p)}</p>" for p in intro)
        + _section_html(sections)
    )
    doc = _render(body)
    total = doc.page_count
    for index in range(total):
        _decorate(doc[index], header, f"Page {index + 1} of {total}")
    doc.set_page_labels([{"startpage": 0, "prefix": "", "style": "D", "firstpagenum": 1}])
    return doc


def normalize(text: str) -> str:
    """The CUAD dev set's page-matching normalization: NFKC, straight quotes and dashes,
    no whitespace."""
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(str.maketrans("\u2018\u2019\u201c\u201d\u2013\u2014", "''\"\"--"))
    return re.sub(r"\s+", "", text)


def _save(doc: pymupdf.Document, path: Path, title: str) -> None:
    doc.set_metadata(
        {
            "title": title,
            "author": "CiteGuard sample corpus",
            "creator": "scripts/make_sample_corpus.py",
            "producer": "PyMuPDF",
            "creationDate": FIXED_DATE,
            "modDate": FIXED_DATE,
        }
    )
    # no_new_id keeps the trailer /ID from changing on every run (deterministic bytes).
    doc.save(path, garbage=4, deflate=True, no_new_id=True)


def gold_pages(doc: pymupdf.Document, spans: list[str]) -> list[int]:
    page_texts = [normalize(doc[i].get_text()) for i in range(doc.page_count)]
    pages: set[int] = set()
    for span in spans:
        hits = [i + 1 for i, text in enumerate(page_texts) if normalize(span) in text]
        if len(hits) != 1:
            raise RuntimeError(f"gold span {span!r} found on pages {hits}, expected exactly one")
        pages.update(hits)
    return sorted(pages)


def write_dataset(
    out_dir: Path,
    docs: dict[str, pymupdf.Document],
    titles: dict[str, str],
    questions: list[dict[str, object]],
) -> None:
    """Save ``docs`` under ``out_dir/docs`` and ``questions`` as ``questions.jsonl``, each
    question's gold pages found where its gold spans are rendered."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "docs").mkdir(exist_ok=True)
    for name, doc in docs.items():
        _save(doc, out_dir / "docs" / name, titles[name])
    lines = []
    for question in questions:
        spans = list(question["gold_spans"])  # type: ignore[call-overload]
        record = {
            "id": question["id"],
            "question": question["question"],
            "doc": question["doc"],
            "answerable": question["answerable"],
            "gold_spans": [{"text": s} for s in spans],
            "gold_pages": gold_pages(docs[str(question["doc"])], spans),
            "reference_answer": question["reference_answer"],
        }
        lines.append(json.dumps(record, ensure_ascii=False))
    (out_dir / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for name, doc in docs.items():
        print(f"{name}: {doc.page_count} pages")
    print(f"questions.jsonl: {len(lines)} questions")


def main(out_dir: Path = DEFAULT_OUT) -> None:
    docs = {"lease.pdf": build_lease(), "tenant_guide.pdf": build_guide()}
    titles = {"lease.pdf": LEASE_TITLE, "tenant_guide.pdf": GUIDE_TITLE}
    write_dataset(out_dir, docs, titles, QUESTIONS)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT)

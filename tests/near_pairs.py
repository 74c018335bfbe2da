"""The near-duplicate pairs of issue 15, shared by the API-facing tests (CLI and MCP): each is
two distinct facts an embedding sees as almost the same (a day, a dose, a negation, a name, an
amount), and a question that recalls both."""

NEAR_PAIRS = {
    "dentist": (
        "Dentist appointment on Thursday at 3pm",
        "Dentist appointment on Tuesday at 10am",
        "dentist appointment",
    ),
    "sertraline": (
        "User takes 100 mg of sertraline",
        "User takes 50 mg of sertraline",
        "sertraline dose",
    ),
    "negation": (
        "The user likes the blue theme of the dashboard in the analytics app",
        "The user does not like the blue theme of the dashboard in the analytics app",
        "blue dashboard theme",
    ),
    "name": (
        "The contact for the Lisbon office migration and the new payroll system is Alice Smith",
        "The contact for the Lisbon office migration and the new payroll system is Alice Jones",
        "who is the contact for the Lisbon migration",
    ),
    "amount": (
        "The monthly rent for the apartment on Main Street is 1200 euros",
        "The monthly rent for the apartment on Main Street is 1350 euros",
        "monthly rent",
    ),
}

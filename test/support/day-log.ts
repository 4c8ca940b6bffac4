// A day log of list items for retrieval tests: one of them answers a question about a key, one neighbours it.
export const DAY_LOG = `---
type: episodic
---
# 2026-11-30

- Bob asked where the spare key of the flat is kept
- It hangs under the blue flower pot by the door
- Lunch with the team at noon, pizza again
- Dentist appointment moved to Friday
`;

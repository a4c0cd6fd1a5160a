// Known bugs in `tandem acp`, written as they SHOULD pass. They fail until the bug is fixed;
// then move them into conformance.test.mjs. Same harness: every message both ways is checked
// against the SDK's JSON schema.

// None known now: the resource_link replay and the prompt links read through fs/read_text_file
// were fixed and moved to conformance.test.mjs.

//! The plan the model keeps and the user watches: the `update_plan` tool (in the shape models
//! know from Codex), its validation, and what the model is told back.
//!
//! The model is untrusted: its plan is bounded (steps, characters) and validated before any face
//! sees it, and a bad call is an error the model reads, never a plan shown half-way.

use serde::Deserialize;
use serde_json::{Value, json};

use tandem_tools::{Effect, Runs, ToolKind, ToolSpec};

/// The most steps one plan may have.
pub const MAX_STEPS: usize = 50;
/// The most characters of one step.
pub const MAX_STEP_CHARS: usize = 500;
/// The most characters of the explanation.
pub const MAX_EXPLANATION_CHARS: usize = 2_000;

/// A plan as the model last gave it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Plan {
    pub explanation: Option<String>,
    pub steps: Vec<PlanStep>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanStep {
    pub step: String,
    pub status: StepStatus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Pending,
    InProgress,
    Completed,
}

impl StepStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Pending => "pending",
            StepStatus::InProgress => "in_progress",
            StepStatus::Completed => "completed",
        }
    }
}

/// The tool: read-only (it changes the session's plan, never the workspace), run by the agent.
pub struct UpdatePlan;

impl UpdatePlan {
    pub const NAME: &'static str = "update_plan";
}

impl ToolSpec for UpdatePlan {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn description(&self) -> String {
        "Keep a short plan for a task of several steps; the user sees it. Send the whole plan \
         each time, with each step pending, in_progress or completed (at most one in_progress). \
         Skip it for a one-step task."
            .into()
    }

    fn compact_description(&self) -> String {
        "Show your plan (steps: pending, in_progress, completed).".into()
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "explanation": {"type": "string", "description": "Why the plan changed (optional)."},
                "plan": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "step": {"type": "string"},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
                        },
                        "required": ["step", "status"]
                    }
                }
            },
            "required": ["plan"]
        })
    }

    fn effect(&self) -> Effect {
        Effect::ReadOnly
    }

    fn runs(&self) -> Runs {
        Runs::Session
    }

    /// Shown as a plan, not as a call; a bad call is shown under this kind.
    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    #[serde(default)]
    explanation: Option<String>,
    plan: Vec<ArgStep>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ArgStep {
    step: String,
    status: StepStatus,
}

/// The plan an `update_plan` call gives, or what is wrong with it (for the model).
pub fn parse(arguments: &str) -> Result<Plan, String> {
    let de = &mut serde_json::Deserializer::from_str(arguments);
    let args: Args = serde_path_to_error::deserialize(de).map_err(|e| {
        let at = e.path().to_string();
        let at = if at == "." {
            String::new()
        } else {
            format!(" at `{at}`")
        };
        format!(
            "the arguments are not a plan{at}: {}. Expected {{\"explanation\"?: string, \"plan\": \
             [{{\"step\": string, \"status\": \"pending\" | \"in_progress\" | \"completed\"}}]}}",
            e.inner()
        )
    })?;
    if args.plan.len() > MAX_STEPS {
        return Err(format!(
            "the plan has {} steps; at most {MAX_STEPS} are kept: merge steps",
            args.plan.len()
        ));
    }
    let explanation = args
        .explanation
        .map(|e| e.trim().to_string())
        .filter(|e| !e.is_empty());
    if let Some(e) = &explanation
        && e.chars().count() > MAX_EXPLANATION_CHARS
    {
        return Err(format!(
            "the explanation has {} characters; at most {MAX_EXPLANATION_CHARS}",
            e.chars().count()
        ));
    }
    let mut steps = Vec::with_capacity(args.plan.len());
    for (i, s) in args.plan.into_iter().enumerate() {
        let step = s.step.trim().to_string();
        let n = i + 1;
        if step.is_empty() {
            return Err(format!("step {n} is empty: say what it does"));
        }
        let chars = step.chars().count();
        if chars > MAX_STEP_CHARS {
            return Err(format!(
                "step {n} has {chars} characters; at most {MAX_STEP_CHARS}: keep steps short"
            ));
        }
        steps.push(PlanStep {
            step,
            status: s.status,
        });
    }
    let running: Vec<String> = steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s.status == StepStatus::InProgress)
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    if running.len() > 1 {
        return Err(format!(
            "steps {} are all in_progress; at most one step is in_progress at a time",
            running.join(", ")
        ));
    }
    Ok(Plan { explanation, steps })
}

impl Plan {
    fn count(&self, status: StepStatus) -> usize {
        self.steps.iter().filter(|s| s.status == status).count()
    }

    /// What the model is told back: short, it knows the plan it sent.
    pub fn acknowledgement(&self) -> String {
        if self.steps.is_empty() {
            return "Plan cleared.".into();
        }
        format!(
            "Plan updated: {} steps ({} completed, {} in progress, {} pending).",
            self.steps.len(),
            self.count(StepStatus::Completed),
            self.count(StepStatus::InProgress),
            self.count(StepStatus::Pending)
        )
    }

    /// One line per step, `[x]` done, `[>]` under way, `[ ]` to do: for faces that show text.
    pub fn checklist(&self) -> String {
        let mut out = String::new();
        if let Some(e) = &self.explanation {
            out.push_str(e);
            out.push('\n');
        }
        for s in &self.steps {
            let mark = match s.status {
                StepStatus::Completed => "[x]",
                StepStatus::InProgress => "[>]",
                StepStatus::Pending => "[ ]",
            };
            out.push_str(&format!("{mark} {}\n", s.step));
        }
        out
    }

    /// The step under way, or else the next to do: the one a progress line names.
    pub fn current(&self) -> Option<&PlanStep> {
        self.steps
            .iter()
            .find(|s| s.status == StepStatus::InProgress)
            .or_else(|| self.steps.iter().find(|s| s.status == StepStatus::Pending))
    }

    /// `2/5 done`.
    pub fn progress(&self) -> String {
        format!(
            "{}/{} done",
            self.count(StepStatus::Completed),
            self.steps.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_codex_plan_parses() {
        let plan = parse(
            r#"{"explanation":"found the bug","plan":[
                {"step":"Read the parser","status":"completed"},
                {"step":"Fix the off-by-one","status":"in_progress"},
                {"step":"Run the tests","status":"pending"}]}"#,
        )
        .unwrap();
        assert_eq!(plan.explanation.as_deref(), Some("found the bug"));
        assert_eq!(plan.steps.len(), 3);
        assert_eq!(plan.steps[1].status, StepStatus::InProgress);
        assert_eq!(plan.current().unwrap().step, "Fix the off-by-one");
        assert_eq!(plan.progress(), "1/3 done");
        assert_eq!(
            plan.acknowledgement(),
            "Plan updated: 3 steps (1 completed, 1 in progress, 1 pending)."
        );
        assert_eq!(
            plan.checklist(),
            "found the bug\n[x] Read the parser\n[>] Fix the off-by-one\n[ ] Run the tests\n"
        );
    }

    #[test]
    fn an_empty_plan_clears_it() {
        let plan = parse(r#"{"plan":[]}"#).unwrap();
        assert!(plan.steps.is_empty());
        assert_eq!(plan.acknowledgement(), "Plan cleared.");
    }

    #[test]
    fn bad_plans_are_refused_with_the_reason() {
        let err = |args: &str| parse(args).unwrap_err();
        assert!(err("not json").contains("not a plan"));
        assert!(err(r#"{"plan":"do it"}"#).contains("not a plan"));
        assert!(err(r#"{"plan":[{"step":"a","status":"done"}]}"#).contains("plan[0].status"));
        assert!(err(r#"{"plan":[{"step":"a","status":"pending","x":1}]}"#).contains("unknown"));
        assert!(err(r#"{"plan":[{"step":"  ","status":"pending"}]}"#).contains("step 1 is empty"));
        let two =
            r#"{"plan":[{"step":"a","status":"in_progress"},{"step":"b","status":"in_progress"}]}"#;
        assert!(err(two).contains("steps 1, 2 are all in_progress"));
    }

    #[test]
    fn a_flood_is_refused() {
        let steps: Vec<String> = (0..=MAX_STEPS)
            .map(|i| format!(r#"{{"step":"s{i}","status":"pending"}}"#))
            .collect();
        let many = format!(r#"{{"plan":[{}]}}"#, steps.join(","));
        assert!(parse(&many).unwrap_err().contains("51 steps"));
        let long = format!(
            r#"{{"plan":[{{"step":"{}","status":"pending"}}]}}"#,
            "x".repeat(MAX_STEP_CHARS + 1)
        );
        assert!(parse(&long).unwrap_err().contains("501 characters"));
        let explained = format!(
            r#"{{"explanation":"{}","plan":[]}}"#,
            "é".repeat(MAX_EXPLANATION_CHARS + 1)
        );
        assert!(parse(&explained).unwrap_err().contains("2001 characters"));
    }
}

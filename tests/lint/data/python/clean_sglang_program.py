"""SGLang frontend program for multi-turn QA with a stable system turn."""

import sglang as sgl

GUIDE = ("You are a patient tutor for high-school chemistry. Explain with one worked example and check the "
         "student's understanding with a short question at the end.")


@sgl.function
def tutor(s, question, history):
    s += sgl.system(GUIDE)
    for turn in history:
        s += sgl.user(turn["question"])
        s += sgl.assistant(turn["answer"])
    s += sgl.user(question)
    s += sgl.assistant(sgl.gen("answer", max_tokens=512))


def run(questions):
    runtime = sgl.Runtime(model_path="Qwen/Qwen2.5-7B-Instruct")
    sgl.set_default_backend(runtime)
    return tutor.run_batch([{"question": q, "history": []} for q in questions])

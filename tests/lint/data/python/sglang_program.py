"""SGLang frontend program for multi-turn QA.

Planted defect: a session id is written into the system turn.
"""

import uuid

import sglang as sgl

GUIDE = ("You are a patient tutor for high-school chemistry. Explain with one worked example, check the "
         "student's understanding with a short question at the end, and never just give the final answer "
         "to a homework problem without the reasoning that leads to it.")


@sgl.function
def tutor(s, question):
    s += sgl.system(f"Session {uuid.uuid4()}. {GUIDE}")
    s += sgl.user(question)
    s += sgl.assistant(sgl.gen("answer", max_tokens=512))

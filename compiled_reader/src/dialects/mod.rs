//! The dialects' quick readers, one module each: what a plainly valid caller message of that
//! dialect gives, as its Python reader's quick path gives it, or `Unread`. Native, OpenAI,
//! Anthropic and Bedrock read each caller message on its own (one left unread is read by Python);
//! Responses and Gemini read a message with what came before it (a run, the calls a response
//! answers), so one message left unread hands the whole list to Python.

mod anthropic;
mod bedrock;
mod gemini;
mod native;
mod openai;
mod responses;

"""SMS channel: Twilio webhooks (inbound, status), keywords, the outbound sender, SMS text shaping.

Only `conversations.sms.gateway` imports the twilio SDK.
"""

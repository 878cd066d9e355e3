from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "conversations"
    verbose_name = "Conversations"

    def ready(self):
        # The engine (workflow layer) may not import the web channel above it: the channel plugs in.
        from conversations.web.events import publish_progress
        from conversations.workflow import extensions

        extensions.register_progress_listener(publish_progress)

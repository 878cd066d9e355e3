from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "conversations"
    verbose_name = "Conversations"

    def ready(self):
        # The layers below the channels (services, workflow) may not import them: the channels plug in.
        from conversations import services, staff
        from conversations.hooks.pii_names import place_names_register
        from conversations.sms.outbox import turn_outbound_put
        from conversations.web.events import publish_progress
        from conversations.workflow import extensions

        extensions.register_progress_listener(publish_progress)
        services.outbound_writer_register("sms", turn_outbound_put)
        services.turn_finished_listener_register(staff.inbox_notify_on_commit)
        # Redaction keeps the cities the region lookup reads; the hooks import no other app, so the names come in here.
        from resources.places import unambiguous_city_names

        place_names_register(unambiguous_city_names())

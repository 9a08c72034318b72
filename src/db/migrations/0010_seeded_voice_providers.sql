-- The seeded public voices get their providers (issue 19). Pipeline voices speak with the
-- local eSpeak NG voice: `female`/`male` follow the assistant's language, `en-gb…` is fixed
-- British English. Multimodal voices are voices of the Realtime server.
UPDATE "voices" SET "provider" = 'local', "provider_voice_id" = 'female' WHERE "user_id" IS NULL AND "name" = 'Anna';
--> statement-breakpoint
UPDATE "voices" SET "provider" = 'local', "provider_voice_id" = 'male' WHERE "user_id" IS NULL AND "name" = 'Ben';
--> statement-breakpoint
UPDATE "voices" SET "provider" = 'local', "provider_voice_id" = 'en-gb+female' WHERE "user_id" IS NULL AND "name" = 'Clara';
--> statement-breakpoint
UPDATE "voices" SET "provider" = 'local', "provider_voice_id" = 'en-gb' WHERE "user_id" IS NULL AND "name" = 'David';
--> statement-breakpoint
UPDATE "voices" SET "provider" = 'openai', "provider_voice_id" = lower("name") WHERE "user_id" IS NULL AND "mode" = 'multimodal' AND "name" IN ('alloy', 'echo', 'shimmer');
